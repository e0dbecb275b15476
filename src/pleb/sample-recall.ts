import { UnionFind } from "../clusters/union-find.js";
import { wilsonInterval, type Proportion } from "../eval/binomial-interval.js";
import type { SignatureStore } from "../runs/signature-store.js";
import type { PlebOptions } from "../options.js";
import { WorkerPool } from "../coordinator/pool.js";
import type { Reporter } from "../coordinator/progress.js";
import { sampleDocuments } from "../eval/document-sample.js";
import { hammingFullTriples } from "../exact/hamming-full.js";
import type { PairColumns } from "./spanning-forest.js";
import type { PairVerifier } from "./pair-verifier.js";

/**
 * PLEB's recall estimated on a document sample while it iterates (`--estimate-recall`,
 * `--target-recall`). The reference is the sampled hamming-full: every document pair with at
 * least one sampled document whose signatures are within the Hamming threshold (pairs inside
 * a group of identical signatures included). A reference pair counts as found when PLEB's
 * pairs so far put its two signatures in one cluster — clusters make recall transitive, as in
 * clusters.tsv. Each pair with a sampled document is in the reference with the same
 * probability, so the share found estimates the recall over all pairs; the interval is
 * Wilson's over the pairs (pairs of one sampled document are not independent: see README).
 * Memory: a union-find over signatures and the reference's signature pairs.
 */
export class SampleRecall {
  private sets: UnionFind;
  private readonly i: Uint32Array;
  private readonly j: Uint32Array;
  /** Document pairs with a sampled document that each signature pair stands for. */
  private readonly weight: Float64Array;
  private readonly identical: number;
  readonly total: number;

  /** `triples`: (i, j, distance) of hammingFullTriples with the sample. */
  constructor(store: SignatureStore, sampled: Uint8Array, triples: Uint32Array) {
    const size = (s: number) => store.offsets[s + 1] - store.offsets[s];
    const hits = new Uint32Array(store.count);
    for (let s = 0; s < store.count; s++) {
      for (let p = store.offsets[s]; p < store.offsets[s + 1]; p++) hits[s] += sampled[store.docs[p]];
    }
    const pairs = (m: number) => (m * (m - 1)) / 2;
    let identical = 0;
    for (let s = 0; s < store.count; s++) identical += pairs(size(s)) - pairs(size(s) - hits[s]);
    const n = triples.length / 3;
    this.i = new Uint32Array(n);
    this.j = new Uint32Array(n);
    this.weight = new Float64Array(n);
    let total = identical;
    for (let k = 0; k < n; k++) {
      const a = triples[3 * k];
      const b = triples[3 * k + 1];
      this.i[k] = a;
      this.j[k] = b;
      this.weight[k] = size(a) * size(b) - (size(a) - hits[a]) * (size(b) - hits[b]);
      total += this.weight[k];
    }
    this.identical = identical;
    this.total = total;
    this.sets = new UnionFind(store.count);
  }

  /** Forgets the pairs added: back to the groups of identical signatures. */
  reset(): void {
    this.sets = new UnionFind(this.sets.parent.length);
  }

  /** Joins the signatures of an iteration group's pairs (its forest is enough). */
  addColumns(columns: Pick<PairColumns, "i" | "j">): void {
    for (let k = 0; k < columns.i.length; k++) this.sets.union(columns.i[k], columns.j[k]);
  }

  /** Recall so far with its 95 % Wilson interval ([0, 1] when the sample has no reference pair: never enough). */
  estimate(): Proportion {
    let found = this.identical;
    for (let k = 0; k < this.i.length; k++) if (this.sets.find(this.i[k]) === this.sets.find(this.j[k])) found += this.weight[k];
    return wilsonInterval(found, this.total);
  }
}

/**
 * The SampleRecall of a run: `opts.recallSample` documents drawn with the run's seed, their
 * signatures compared with all others at the Hamming threshold on a pool of exact workers
 * (and, with `verifier`, kept when their exact cosine reaches --cosine-threshold).
 */
export async function sampleRecallOf(
  store: SignatureStore,
  documents: number,
  opts: Pick<PlebOptions, "recallSample" | "seed" | "threshold">,
  workers: number,
  reporter: Reporter,
  verifier?: PairVerifier,
): Promise<SampleRecall> {
  const sampled = sampleDocuments(documents, opts.recallSample ?? 0, opts.seed);
  const pool = new WorkerPool("exact", workers);
  try {
    const triples = await hammingFullTriples(store, { threshold: opts.threshold, sampled }, pool, reporter);
    // With --verify PLEB keeps only pairs of cosine ≥ the threshold: so does the reference.
    return new SampleRecall(store, sampled, verifier === undefined ? triples : verifier.filter(triples));
  } finally {
    await pool.close();
  }
}
