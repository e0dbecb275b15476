import { closeSync, openSync, readSync } from "node:fs";
import type { TaskPool } from "../../executor/in-process-pool.js";
import type { MethodsTasks } from "../sets/methods-entry.js";
import { extractFile, type ExtractTask, type SetBlock, type VerifyTask } from "./sets.js";
import type { MinhashShard } from "./minhash.js";

/** Candidates verified per task: large enough to amortise a task, small enough to spread. */
const VERIFY_BATCH = 1 << 15;

export interface VerifySettings {
  documents: number;
  workdir: string;
  pool: TaskPool<MethodsTasks>;
  /** Bytes of sets held at once: two blocks of at most half of it each. */
  memory: number;
}

/** The candidate documents in corpus order, with where their extracted sets are. */
interface Extracted {
  docs: Uint32Array;
  sizes: Uint32Array;
  /** Shard of each, and the float64 offset of its set in that shard's extract file. */
  shard: Uint32Array;
  offset: Float64Array;
  /** Index in `docs` of each corpus document (−1 when it is not a candidate). */
  slot: Int32Array;
}

/** Each shard's candidate documents, extracted by the pool (one read of each sets file). */
async function extract(candidates: Uint32Array, shards: readonly MinhashShard[], s: VerifySettings): Promise<Extracted> {
  const wanted = new Uint8Array(s.documents);
  for (const d of candidates) wanted[d] = 1;
  const perShard = shards.map((x) => {
    const local: number[] = [];
    for (let i = 0; i < x.tokens.length; i++) if (wanted[x.firstDoc + i]) local.push(i);
    return Uint32Array.from(local);
  });
  const sizes = await Promise.all(
    perShard.map((docs, shard) => (docs.length === 0 ? new Uint32Array(0) : s.pool.run("extract", { workdir: s.workdir, shard, sets: shards[shard].sets, docs } satisfies ExtractTask))),
  );
  const n = perShard.reduce((m, d) => m + d.length, 0);
  const e: Extracted = { docs: new Uint32Array(n), sizes: new Uint32Array(n), shard: new Uint32Array(n), offset: new Float64Array(n), slot: new Int32Array(s.documents).fill(-1) };
  let k = 0;
  perShard.forEach((docs, shard) => {
    let offset = 0;
    docs.forEach((local, i) => {
      const doc = shards[shard].firstDoc + local;
      e.docs[k] = doc;
      e.sizes[k] = sizes[shard][i];
      e.shard[k] = shard;
      e.offset[k] = offset;
      e.slot[doc] = k++;
      offset += sizes[shard][i];
    });
  });
  return e;
}

/** Cuts the candidate documents into blocks (ranges of `docs`) of at most `bytes` of sets each. */
function blocks(e: Extracted, bytes: number): number[] {
  const starts = [0];
  let used = 0;
  for (let k = 0; k < e.docs.length; k++) {
    const size = 8 * e.sizes[k];
    if (used > 0 && used + size > bytes) {
      starts.push(k);
      used = 0;
    }
    used += size;
  }
  starts.push(e.docs.length);
  return starts;
}

/** Reads the sets of candidates [from, to) from the extract files into shared memory. */
function loadBlock(e: Extracted, from: number, to: number, workdir: string): SetBlock {
  const starts = new Float64Array(new SharedArrayBuffer(8 * (to - from + 1)));
  for (let k = from; k < to; k++) starts[k - from + 1] = starts[k - from] + e.sizes[k];
  const values = new Float64Array(new SharedArrayBuffer(8 * starts[to - from]));
  // Consecutive candidates of one shard are consecutive in its extract file: one read each run.
  for (let k = from; k < to; ) {
    let end = k;
    while (end < to && e.shard[end] === e.shard[k]) end++;
    const fd = openSync(extractFile(workdir, e.shard[k]), "r");
    try {
      const at = starts[k - from];
      const length = starts[end - from] - at;
      const view = new Uint8Array(values.buffer, 8 * at, 8 * length);
      let done = 0;
      while (done < view.length) done += readSync(fd, view, done, view.length - done, 8 * e.offset[k] + done);
    } finally {
      closeSync(fd);
    }
    k = end;
  }
  return { values, starts };
}

/**
 * Exact Jaccard of every candidate pair (flat doc_a, doc_b), on the pool, in candidate order. Candidates' sets live in shared-memory blocks within
 * `memory`: one block when they fit (the usual case), else every pair of blocks that has
 * candidates, in order, keeping the first block of a pair while the second one changes.
 */
export async function verifyCandidates(candidates: Uint32Array, shards: readonly MinhashShard[], s: VerifySettings): Promise<{ similarities: Float64Array; blocks: number }> {
  const similarities = new Float64Array(candidates.length / 2);
  if (candidates.length === 0) return { similarities, blocks: 0 };
  const e = await extract(candidates, shards, s);
  const starts = blocks(e, s.memory / 2);
  const count = starts.length - 1;
  const blockOf = new Uint32Array(e.docs.length);
  for (let b = 0; b < count; b++) blockOf.fill(b, starts[b], starts[b + 1]);
  // Candidates sorted by (block of a, block of b) with a counting sort.
  const groupOf = (p: number) => blockOf[e.slot[candidates[2 * p]]] * count + blockOf[e.slot[candidates[2 * p + 1]]];
  const total = candidates.length / 2;
  const groupStart = new Float64Array(count * count + 1);
  for (let p = 0; p < total; p++) groupStart[groupOf(p) + 1]++;
  for (let g = 0; g < count * count; g++) groupStart[g + 1] += groupStart[g];
  const order = new Uint32Array(total);
  const fill = groupStart.slice(0, count * count);
  for (let p = 0; p < total; p++) order[fill[groupOf(p)]++] = p;

  let loadedA = -1;
  let blockA: SetBlock | null = null;
  for (let g = 0; g < count * count; g++) {
    if (groupStart[g] === groupStart[g + 1]) continue;
    const ba = Math.floor(g / count);
    const bb = g % count;
    if (ba !== loadedA) {
      blockA = loadBlock(e, starts[ba], starts[ba + 1], s.workdir);
      loadedA = ba;
    }
    const a = blockA as SetBlock;
    const b = bb === ba ? a : loadBlock(e, starts[bb], starts[bb + 1], s.workdir);
    const pending: Promise<void>[] = [];
    for (let from = groupStart[g]; from < groupStart[g + 1]; from += VERIFY_BATCH) {
      const to = Math.min(from + VERIFY_BATCH, groupStart[g + 1]);
      const list = new Uint32Array(2 * (to - from));
      for (let q = from; q < to; q++) {
        const p = order[q];
        list[2 * (q - from)] = e.slot[candidates[2 * p]] - starts[ba];
        list[2 * (q - from) + 1] = e.slot[candidates[2 * p + 1]] - starts[bb];
      }
      const { result } = await s.pool.submit("verify", { a, b, pairs: list } satisfies VerifyTask);
      pending.push(
        result.then((sims) => {
          for (let k = 0; k < sims.length; k++) similarities[order[from + k]] = sims[k];
        }),
      );
    }
    await Promise.all(pending);
  }
  return { similarities, blocks: count };
}
