import type { TaskPool } from "../../executor/in-process-pool.js";
import type { ReferenceTasks } from "./reference-entry.js";
import type { Reporter } from "../../executor/progress.js";
import type { ScoredPairs } from "../pairs-file.js";
import { maxDistanceFor } from "../../pleb/hamming.js";
import type { SignatureStore } from "../../runs/signature-store.js";
import { concatU32 } from "../../util/typed-arrays.js";
import { balancedRanges } from "./balance.js";
import { hammingKernel } from "./hamming-wasm.js";
import type { HammingRowsTask } from "./hamming-task.js";
import { runBlocks, sampleDigest, startReference, type ReferenceSteps } from "./reference-blocks.js";

export interface HammingFullOptions {
  threshold: number;
  /** sampled[ordinal] = 1 for the documents of a sample list; null: all pairs. */
  sampled: Uint8Array | null;
  /** Use the TypeScript kernel even where the WebAssembly one applies. */
  portable?: boolean;
  blocksPerWorker?: number;
  /** Where the blocks are kept, to be resumed (the `hamming-full` command); absent: nothing kept. */
  steps?: ReferenceSteps;
}

/**
 * Exact all-pairs relative Hamming similarity of the distinct signatures of a store (the
 * thesis's `hamming_full`): (i, j, d) triples of signature indices i < j with
 * 1 − d/bits ≥ threshold. The upper triangle is split into row ranges of equal work
 * (row i: n − 1 − i comparisons); with a sample only the signatures of sampled documents
 * are rows, each compared with all others.
 */
export async function hammingFullTriples(
  store: SignatureStore,
  opts: HammingFullOptions,
  pool: TaskPool<ReferenceTasks>,
  reporter: Reporter,
): Promise<Uint32Array> {
  const n = store.count;
  const maxDistance = maxDistanceFor(store.words * 32, opts.threshold);
  if (opts.portable !== true && store.words % 8 === 0) hammingKernel.report((m) => reporter.info(m));
  const base = { signatures: store.signatures, words: store.words, maxDistance, portable: opts.portable };
  const planned = { "--threshold": opts.threshold, "--sample-list": sampleDigest(opts.sampled), blocks: pool.threads * (opts.blocksPerWorker ?? 8) };
  const { step: kept, config } = await startReference(opts.steps, "hamming-full", planned);
  const parts = config.blocks;
  const tasks: HammingRowsTask[] = [];
  if (opts.sampled === null) {
    for (const [from, to] of balancedRanges(n, parts, (i) => n - i)) tasks.push({ ...base, from, to });
  } else {
    const sampledSig = signaturesOf(store, opts.sampled);
    const list: number[] = [];
    for (let i = 0; i < n; i++) if (sampledSig[i] === 1) list.push(i);
    const step = Math.max(1, Math.ceil(list.length / parts));
    for (let k = 0; k < list.length; k += step) {
      tasks.push({ ...base, from: 0, to: 0, rows: Uint32Array.from(list.slice(k, k + step)), sampled: sampledSig });
    }
  }
  return concatU32(await runBlocks("hamming-full", kept, pool, "hamming", tasks, reporter));
}

/** 1 for the signatures that carry at least one sampled document. */
function signaturesOf(store: SignatureStore, sampled: Uint8Array): Uint8Array {
  const out = new Uint8Array(store.count);
  for (let i = 0; i < store.count; i++) {
    for (let p = store.offsets[i]; p < store.offsets[i + 1]; p++) if (sampled[store.docs[p]] === 1) out[i] = 1;
  }
  return out;
}

/**
 * Document pairs of signature triples: every document of signature i with every document
 * of signature j at 1 − d/bits, and the documents sharing a signature with each other at 1
 * (as pairs.tsv of the core pipeline). With a sample, only pairs with a sampled document.
 */
export function documentPairsOf(store: SignatureStore, triples: Uint32Array, sampled: Uint8Array | null): ScoredPairs {
  const bits = store.words * 32;
  const { offsets, docs } = store;
  const a: number[] = [];
  const b: number[] = [];
  const s: number[] = [];
  const put = (x: number, y: number, sim: number) => {
    if (sampled !== null && sampled[x] === 0 && sampled[y] === 0) return;
    a.push(Math.min(x, y));
    b.push(Math.max(x, y));
    s.push(sim);
  };
  for (let i = 0; i < store.count; i++) {
    for (let p = offsets[i]; p < offsets[i + 1]; p++) {
      for (let q = p + 1; q < offsets[i + 1]; q++) put(docs[p], docs[q], 1);
    }
  }
  for (let t = 0; t < triples.length; t += 3) {
    const i = triples[t];
    const j = triples[t + 1];
    const sim = 1 - triples[t + 2] / bits;
    for (let p = offsets[i]; p < offsets[i + 1]; p++) {
      for (let q = offsets[j]; q < offsets[j + 1]; q++) put(docs[p], docs[q], sim);
    }
  }
  return { a: Uint32Array.from(a), b: Uint32Array.from(b), similarity: Float64Array.from(s) };
}
