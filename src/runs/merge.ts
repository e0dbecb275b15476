import { open } from "node:fs/promises";
import { openAtomic } from "../util/atomic.js";
import { readRunFileSync } from "../util/run-file.js";
import type { SigRecord } from "../sketch/signature-record.js";

/**
 * Sorted signature records packed in a block of u32: per record its ordinal, then its
 * signature's words (`stride` = words + 1 values). The merge compares and copies records in
 * place: a record object and an awaited step per record (msgpack streams, async iterators)
 * cost ten times the merge itself.
 */
export interface SigBlock {
  stride: number;
  values: Uint32Array;
}

/** Records per block read from a source or written to an intermediate run. */
const BLOCK_RECORDS = 4096;

/** A sorted source of records, a block at a time; null when it has no more. */
type Source = () => Promise<SigBlock | null>;

/** The records as a block (all of one signature length). */
export function packRecords(records: readonly SigRecord[]): SigBlock | null {
  if (records.length === 0) return null;
  const stride = records[0].s.length + 1;
  const values = new Uint32Array(records.length * stride);
  records.forEach((r, k) => {
    if (r.s.length + 1 !== stride) throw new Error(`signatures of ${stride - 1} and ${r.s.length} words in one run`);
    values[k * stride] = r.d;
    values.set(r.s, k * stride + 1);
  });
  return { stride, values };
}

/** A shard's run file (sign-shard.ts, bounded by the chunk size), read whole. */
function runFileSource(path: string): Source {
  let read = false;
  return async () => {
    if (read) return null;
    read = true;
    return packRecords(readRunFileSync<SigRecord>(path));
  };
}

/** Sorted records of another origin (a saved index's store), packed a block at a time. */
function recordSource(records: AsyncIterable<SigRecord>): Source {
  const it = records[Symbol.asyncIterator]();
  return async () => {
    const batch: SigRecord[] = [];
    while (batch.length < BLOCK_RECORDS) {
      const next = await it.next();
      if (next.done === true) break;
      batch.push(next.value);
    }
    return packRecords(batch);
  };
}

/** An intermediate run: raw blocks as `mergeInto` wrote them (signatures are random bits: zstd gained nothing). */
function scratchSource(path: string, stride: number): Source {
  let at = 0;
  return async () => {
    const handle = await open(path, "r");
    try {
      const bytes = Buffer.allocUnsafeSlow(BLOCK_RECORDS * stride * 4);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, at);
      at += bytesRead;
      if (bytesRead % (stride * 4) !== 0) throw new Error(`${path}: ends inside a record`);
      return bytesRead === 0 ? null : { stride, values: new Uint32Array(bytes.buffer, 0, bytesRead / 4) };
    } finally {
      await handle.close();
    }
  };
}

/**
 * K-way merge of sorted signature runs (SigRecord order: signature words, then ordinal) with
 * a binary heap, as blocks of records. More runs than `fanIn` are first merged group by
 * group into intermediate runs (in `scratch`), so the number of sources and of buffered
 * blocks stays bounded whatever the number of shards. `extra`: sorted streams of other
 * origins (a saved index's store) that join the last merge.
 */
export async function* mergeRuns(
  paths: readonly string[],
  scratch: (level: number, group: number) => string,
  fanIn = 64,
  extra: readonly AsyncIterable<SigRecord>[] = [],
): AsyncGenerator<SigBlock> {
  let level = 0;
  let inputs: Source[] = paths.map(runFileSource);
  while (inputs.length > fanIn) {
    const next: Source[] = [];
    for (let g = 0; g * fanIn < inputs.length; g++) {
      const out = scratch(level, g);
      const file = openAtomic(out);
      let stride = 0;
      for await (const block of mergeOnce(inputs.slice(g * fanIn, (g + 1) * fanIn))) {
        stride = block.stride;
        await file.write(Buffer.from(block.values.buffer, block.values.byteOffset, block.values.byteLength));
      }
      await file.commit();
      if (stride > 0) next.push(scratchSource(out, stride));
    }
    inputs = next;
    level++;
  }
  yield* mergeOnce([...extra.map(recordSource), ...inputs]);
}

/** One merge of sources, in blocks of up to BLOCK_RECORDS records (a source's tie: the earlier source first). */
async function* mergeOnce(sources: readonly Source[]): AsyncGenerator<SigBlock> {
  const blocks: Uint32Array[] = [];
  const at: number[] = [];
  const heap: number[] = [];
  let stride = 0;
  const less = (x: number, y: number) => {
    const a = blocks[x];
    const b = blocks[y];
    const i = at[x];
    const j = at[y];
    for (let k = 1; k < stride; k++) {
      if (a[i + k] !== b[j + k]) return a[i + k] < b[j + k];
    }
    return a[i] !== b[j] ? a[i] < b[j] : x < y;
  };
  const siftDown = (from: number) => {
    for (let p = from; ; ) {
      const l = 2 * p + 1;
      const r = l + 1;
      let m = p;
      if (l < heap.length && less(heap[l], heap[m])) m = l;
      if (r < heap.length && less(heap[r], heap[m])) m = r;
      if (m === p) return;
      [heap[p], heap[m]] = [heap[m], heap[p]];
      p = m;
    }
  };
  // The source's next block, or false when it has ended.
  const fill = async (i: number): Promise<boolean> => {
    const block = await sources[i]();
    if (block === null) return false;
    if (stride === 0) stride = block.stride;
    if (block.stride !== stride) throw new Error(`signatures of ${stride - 1} and ${block.stride - 1} words in one merge`);
    blocks[i] = block.values;
    at[i] = 0;
    return true;
  };
  for (let i = 0; i < sources.length; i++) if (await fill(i)) heap.push(i);
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
  let out = new Uint32Array(BLOCK_RECORDS * stride);
  let used = 0;
  while (heap.length > 0) {
    const top = heap[0];
    out.set(blocks[top].subarray(at[top], at[top] + stride), used);
    used += stride;
    if (used === out.length) {
      yield { stride, values: out };
      out = new Uint32Array(BLOCK_RECORDS * stride);
      used = 0;
    }
    at[top] += stride;
    if (at[top] === blocks[top].length && !(await fill(top))) {
      heap[0] = heap[heap.length - 1];
      heap.pop();
    }
    siftDown(0);
  }
  if (used > 0) yield { stride, values: out.subarray(0, used) };
}
