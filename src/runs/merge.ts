import { readRunFile, RunWriter } from "./run-file.js";

/**
 * K-way merge of sorted run files with a binary heap. More runs than `fanIn` are first
 * merged group by group into intermediate runs (in `scratch`), so the number of open
 * files and of buffered records stays bounded whatever the number of shards. `extra`:
 * sorted streams of other origins (a saved index's store) that join the last merge.
 */
export async function* mergeRuns<T>(
  paths: readonly string[],
  compare: (a: T, b: T) => number,
  scratch: (level: number, group: number) => string,
  fanIn = 64,
  extra: readonly AsyncIterable<T>[] = [],
): AsyncGenerator<T> {
  let level = 0;
  let inputs = [...paths];
  while (inputs.length > fanIn) {
    const next: string[] = [];
    for (let g = 0; g * fanIn < inputs.length; g++) {
      const out = scratch(level, g);
      const writer = new RunWriter(out);
      for await (const r of mergeOnce(inputs.slice(g * fanIn, (g + 1) * fanIn).map((p) => readRunFile<T>(p)), compare)) await writer.write(r);
      await writer.close();
      next.push(out);
    }
    inputs = next;
    level++;
  }
  yield* mergeOnce([...extra, ...inputs.map((p) => readRunFile<T>(p))], compare);
}

async function* mergeOnce<T>(streams: readonly AsyncIterable<T>[], compare: (a: T, b: T) => number): AsyncGenerator<T> {
  const sources = streams.map((s) => s[Symbol.asyncIterator]());
  const heads: T[] = [];
  const heap: number[] = [];
  const less = (x: number, y: number) => {
    const c = compare(heads[x], heads[y]);
    return c < 0 || (c === 0 && x < y);
  };
  const siftDown = (at: number) => {
    for (;;) {
      const l = 2 * at + 1;
      const r = l + 1;
      let m = at;
      if (l < heap.length && less(heap[l], heap[m])) m = l;
      if (r < heap.length && less(heap[r], heap[m])) m = r;
      if (m === at) return;
      [heap[at], heap[m]] = [heap[m], heap[at]];
      at = m;
    }
  };
  for (let i = 0; i < sources.length; i++) {
    const first = await sources[i].next();
    if (!first.done) {
      heads[i] = first.value;
      heap.push(i);
    }
  }
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
  while (heap.length > 0) {
    const top = heap[0];
    yield heads[top];
    const next = await sources[top].next();
    if (next.done) {
      heap[0] = heap[heap.length - 1];
      heap.pop();
    } else heads[top] = next.value;
    siftDown(0);
  }
}
