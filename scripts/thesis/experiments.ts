import { prepareSignatures } from "../../src/methods/lsh-cosine/pipeline.js";
import type { PrepareManifest } from "../../src/features/prepare-manifest.js";
import type { WorkerPool } from "../../src/executor/pool.js";
import type { ReferenceTasks } from "../../src/eval/exact/reference-entry.js";
import type { PlebTasks } from "../../src/pleb/pleb-entry.js";
import { silentReporter } from "../../src/executor/progress.js";
import { DEFAULT_PREPARE, type PrepareOptions } from "../../src/core/options.js";
import { loadSignatureStore, type SignatureStore } from "../../src/runs/signature-store.js";
import { FoundPairs } from "../../src/pleb/found-pairs.js";
import { loadDocIds, type DocIds } from "../../src/output/doc-ids.js";
import { signatureOfDocument } from "../../src/output/pairs.js";
import { hammingDistance } from "../../src/pleb/hamming.js";
import { runIterations } from "../../src/pleb/run-pleb.js";
import { iterationLog } from "../../src/pleb/pleb-log.js";
import { documentPairsOf, hammingFullTriples } from "../../src/eval/exact/hamming-full.js";
import { allPairsSimilarity } from "../../src/eval/exact/similarity.js";
import { loadWorkdirVectors } from "../../src/features/workdir-vectors.js";
import { rowCosine, type SparseRows } from "../../src/features/sparse-rows.js";
import type { PairTable, ScoredPairs } from "../../src/eval/pairs-file.js";
import { ReferenceRecall } from "../../src/eval/reference-recall.js";

/** A prepared corpus with what the experiments read from it. */
export interface Prepared {
  workdir: string;
  manifest: PrepareManifest;
  store: SignatureStore;
  ids: DocIds;
  seconds: number;
}

/** Prepares `corpus`, by default with the thesis's method: float32 Gaussian components (--projection float32), seed 1. */
export async function prepareCorpus(
  corpus: string,
  workdir: string,
  bits: number,
  workers: number,
  weighting: PrepareOptions["weighting"],
  { projection = "float32", seed = DEFAULT_PREPARE.seed }: Partial<Pick<PrepareOptions, "projection" | "seed">> = {},
): Promise<Prepared> {
  const t0 = performance.now();
  const manifest = await prepareSignatures([corpus], workdir, { ...DEFAULT_PREPARE, bits, weighting, projection, seed }, { workers, quiet: true });
  const seconds = (performance.now() - t0) / 1000;
  return { workdir, manifest, store: loadSignatureStore(workdir, bits), ids: loadDocIds(workdir, manifest.counts.shards), seconds };
}

/** Exact pairs of the corpus as a reference table (ordinals are the corpus's). */
export function asTable(path: string, pairs: ScoredPairs, ids: DocIds): PairTable {
  return { path, ids, ...pairs };
}

export async function timedHammingFull(p: Prepared, threshold: number, pool: WorkerPool<ReferenceTasks>): Promise<{ pairs: ScoredPairs; seconds: number }> {
  const t0 = performance.now();
  const triples = await hammingFullTriples(p.store, { threshold, sampled: null }, pool, silentReporter);
  const pairs = documentPairsOf(p.store, triples, null);
  return { pairs, seconds: (performance.now() - t0) / 1000 };
}

/** Exact cosine pairs ≥ threshold (with `sampled`, only the pairs involving a sampled document's ordinal). */
export async function timedSimilarity(
  p: Prepared,
  threshold: number,
  pool: WorkerPool<ReferenceTasks>,
  sampled: Uint8Array | null = null,
): Promise<{ pairs: ScoredPairs; rows: SparseRows; seconds: number }> {
  const t0 = performance.now();
  const rows = loadWorkdirVectors(p.workdir, p.manifest);
  const pairs = await allPairsSimilarity(rows, { threshold, sampled }, pool, silentReporter);
  return { pairs, rows, seconds: (performance.now() - t0) / 1000 };
}

export interface PlebRun {
  /** Recall (%) after each iteration 0..iterations. */
  recall: number[];
  seconds: number;
}

/** PLEB with the given settings, following its recall against `reference`. */
export async function plebRecall(
  p: Prepared,
  reference: PairTable,
  settings: { threshold: number; beam: number; shiftCount: number; iterations: number },
  pool: WorkerPool<PlebTasks>,
  workers: number,
): Promise<PlebRun> {
  const tracker = new ReferenceRecall(reference, p.ids, p.store);
  const t0 = performance.now();
  const found = new FoundPairs(Math.max(p.store.count, 1));
  const iterationSeconds = await runIterations({ store: p.store, opts: { ...settings, seed: 1 }, first: 1, last: settings.iterations, exec: { workers }, pool, sink: found, onIteration: () => undefined });
  const seconds = (performance.now() - t0) / 1000;
  return { recall: iterationLog(p.store, found, iterationSeconds, tracker).map((r) => 100 * (r.recall ?? 0)), seconds };
}

/**
 * Pairs to judge the approximation on: every pair with cosine ≥ `minCosine` plus `random`
 * pseudo-random other pairs (to show the low-cosine region), as corpus ordinals.
 */
export function judgedPairs(similar: ScoredPairs, documents: number, random: number): [number, number][] {
  const out = new Map<number, [number, number]>();
  for (let k = 0; k < similar.a.length; k++) out.set(similar.a[k] * documents + similar.b[k], [similar.a[k], similar.b[k]]);
  let x = 12345;
  for (let k = 0; k < random; k++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const a = x % documents;
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const b = x % documents;
    if (a !== b) out.set(Math.min(a, b) * documents + Math.max(a, b), [Math.min(a, b), Math.max(a, b)]);
  }
  return [...out.values()];
}

/** Exact cosine and relative Hamming similarity of the judged pairs (pairs lacking either are dropped). */
export function cosineAndHamming(rows: SparseRows, p: Prepared, pairs: [number, number][]): { c: number[]; h: number[] } {
  const documents = p.manifest.counts.documents;
  const rowOf = new Int32Array(documents).fill(-1);
  for (let r = 0; r < rows.ordinals.length; r++) rowOf[rows.ordinals[r]] = r;
  const sigOf = signatureOfDocument(p.store, documents);
  const scratch = new Float64Array(rows.columns);
  const bits = p.store.words * 32;
  const c: number[] = [];
  const h: number[] = [];
  for (const [a, b] of pairs) {
    if (rowOf[a] < 0 || rowOf[b] < 0) continue;
    c.push(rowCosine(rows, rowOf[a], rowOf[b], scratch));
    h.push(1 - hammingDistance(p.store.signatures, sigOf[a], sigOf[b], p.store.words) / bits);
  }
  return { c, h };
}
