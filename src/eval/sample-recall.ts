import { UnionFind } from "../util/union-find.js";
import { wilsonInterval, type Proportion } from "../util/binomial-interval.js";
import type { SignatureStore } from "../runs/signature-store.js";
import type { PlebOptions } from "../core/options.js";
import { WorkerPool } from "../executor/pool.js";
import type { Reporter } from "../executor/progress.js";
import { sampleDocuments } from "./document-sample.js";
import { drawStratified, pairShare, stratifiedDesign, stratifiedRatio, type StratifiedDesign } from "./stratified-sample.js";
import { hammingFullTriples } from "./exact/hamming-full.js";
import type { PairColumns } from "../pleb/spanning-forest.js";
import { tripleEnds } from "../pleb/run-pleb.js";
import type { RecallSampler } from "../pleb/pleb-step.js";
import type { PairVerifier } from "../pleb/pair-verifier.js";
import { REFERENCE_WORKERS } from "./exact/reference-entry.js";

/**
 * PLEB's recall estimated on a document sample while it iterates (`--estimate-recall`,
 * `--target-recall`). The reference is the sampled hamming-full: every document pair with at
 * least one sampled document whose signatures are within the Hamming threshold (pairs inside
 * a group of identical signatures included). A reference pair counts as found when PLEB's
 * pairs so far put its two signatures in one cluster — clusters make recall transitive, as in
 * clusters.tsv. Uniform sample (no `design`): each pair with a sampled document is in the
 * reference with the same probability, so the share found estimates the recall over all
 * pairs; the interval is Wilson's over the pairs (pairs of one sampled document are not
 * independent: see README). Stratified sample: the documents are the units, each bringing
 * its reference pairs and those found, weighted by its stratum (stratifiedRatio, as
 * calibrate). Memory: a union-find over signatures and the reference's signature pairs.
 */
export class SampleRecall {
  private sets: UnionFind;
  private readonly i: Uint32Array;
  private readonly j: Uint32Array;
  /** Document pairs with a sampled document that each signature pair stands for. */
  private readonly weight: Float64Array;
  private readonly identical: number;
  /** Stratified: the signature of each sampled document, in document order. */
  private readonly sampledSignature: Uint32Array;
  private readonly sampledDocs: Uint32Array;
  private readonly sizes: Uint32Array;
  /** Stratified: the stratum of each signature's documents (0 without a design). */
  private readonly stratumOf: Uint8Array;
  readonly total: number;

  /** `triples`: (i, j, distance) of hammingFullTriples with the sample; `design`: the one it was drawn by (absent: uniform). */
  constructor(store: SignatureStore, sampled: Uint8Array, triples: Uint32Array, readonly design?: StratifiedDesign) {
    const sizes = new Uint32Array(store.count);
    for (let s = 0; s < store.count; s++) sizes[s] = store.offsets[s + 1] - store.offsets[s];
    const hits = new Uint32Array(store.count);
    const sampledDocs: number[] = [];
    const sampledSignature: number[] = [];
    for (let s = 0; s < store.count; s++) {
      for (let p = store.offsets[s]; p < store.offsets[s + 1]; p++) {
        if (sampled[store.docs[p]] === 0) continue;
        hits[s]++;
        sampledDocs.push(store.docs[p]);
        sampledSignature.push(s);
      }
    }
    const pairs = (m: number) => (m * (m - 1)) / 2;
    let identical = 0;
    for (let s = 0; s < store.count; s++) identical += pairs(sizes[s]) - pairs(sizes[s] - hits[s]);
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
      this.weight[k] = sizes[a] * sizes[b] - (sizes[a] - hits[a]) * (sizes[b] - hits[b]);
      total += this.weight[k];
    }
    this.identical = identical;
    this.total = total;
    this.sizes = sizes;
    this.stratumOf = new Uint8Array(store.count);
    if (design !== undefined) for (let s = 0; s < store.count; s++) if (sizes[s] > 0) this.stratumOf[s] = design.stratumOf[store.docs[store.offsets[s]]];
    this.sampledDocs = Uint32Array.from(sampledDocs);
    this.sampledSignature = Uint32Array.from(sampledSignature);
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

  /** Recall so far with its 95 % interval ([0, 1] when the sample has no reference pair: never enough). */
  estimate(): Proportion {
    if (this.design !== undefined) return this.stratified(this.design);
    let found = this.identical;
    for (let k = 0; k < this.i.length; k++) if (this.sets.find(this.i[k]) === this.sets.find(this.j[k])) found += this.weight[k];
    return wilsonInterval(found, this.total);
  }

  /**
   * Per sampled document d of signature s: x_d, its share (pairShare) of its pairs with the
   * documents of s but d and with those of every signature paired with s in the reference;
   * y_d, that of those in d's cluster so far. All the sampled documents of one signature
   * share x and y (and a stratum: the strata are clusters of signatures).
   */
  private stratified(design: StratifiedDesign): Proportion {
    const x = new Float64Array(this.sizes.length);
    const y = new Float64Array(this.sizes.length);
    const share = pairShare(design);
    for (let s = 0; s < this.sizes.length; s++) x[s] = y[s] = Math.max(0, this.sizes[s] - 1) / 2;
    for (let k = 0; k < this.i.length; k++) {
      const [a, b] = [this.i[k], this.j[k]];
      const hit = this.sets.find(a) === this.sets.find(b);
      const [ha, hb] = [this.stratumOf[a], this.stratumOf[b]];
      x[a] += this.sizes[b] * share(ha, hb);
      x[b] += this.sizes[a] * share(hb, ha);
      if (hit) (y[a] += this.sizes[b] * share(ha, hb), y[b] += this.sizes[a] * share(hb, ha));
    }
    const docX = Float64Array.from(this.sampledSignature, (s) => x[s]);
    const docY = Float64Array.from(this.sampledSignature, (s) => y[s]);
    if (this.total === 0) return { estimate: NaN, low: 0, high: 1 };
    return stratifiedRatio(design, this.sampledDocs, docY, docX, this.total);
  }
}

/**
 * The strata of PLEB's stratified sample: the clusters of the first iteration group's pairs
 * (`firstGroup`, its forest is enough) over the documents, 0 for a document alone. They are
 * fixed before the sample is drawn and depend on no sampled document, so the estimates
 * stay design-unbiased; they are the same whatever the workers (a group's pairs are).
 */
export function firstGroupClusters(store: SignatureStore, documents: number, firstGroup: Pick<PairColumns, "i" | "j">): Uint32Array {
  const sets = new UnionFind(store.count);
  for (let k = 0; k < firstGroup.i.length; k++) sets.union(firstGroup.i[k], firstGroup.j[k]);
  const roots = sets.roots();
  const members = new Uint32Array(store.count);
  for (let s = 0; s < store.count; s++) members[roots[s]] += store.offsets[s + 1] - store.offsets[s];
  const id = new Uint32Array(store.count);
  let clusters = 0;
  for (let s = 0; s < store.count; s++) if (roots[s] === s && members[s] > 1) id[s] = ++clusters;
  const clusterOf = new Uint32Array(documents);
  for (let s = 0; s < store.count; s++) {
    for (let p = store.offsets[s]; p < store.offsets[s + 1]; p++) clusterOf[store.docs[p]] = id[roots[s]];
  }
  return clusterOf;
}

/**
 * A sampler of PLEB's recall for a run: given the first iteration group's pairs, it draws
 * `opts.recallSample` documents with the run's seed — uniformly, or (`--sampling
 * stratified`) by the strata of firstGroupClusters — and compares their signatures with all
 * others at the Hamming threshold on a pool of exact workers (with `verifier`, keeping the
 * pairs whose exact cosine reaches --cosine-threshold, as PLEB does).
 */
export function recallSampler(
  store: SignatureStore,
  documents: number,
  opts: Pick<PlebOptions, "recallSample" | "recallSampling" | "seed" | "threshold">,
  workers: number,
  reporter: Reporter,
  verifier?: PairVerifier,
): RecallSampler<SampleRecall> {
  return async (firstGroup) => {
    const size = opts.recallSample ?? 0;
    const design = opts.recallSampling === "stratified" ? stratifiedDesign(firstGroupClusters(store, documents, firstGroup), size) : undefined;
    const sampled = design === undefined ? sampleDocuments(documents, size, opts.seed) : drawStratified(design, opts.seed);
    const pool = new WorkerPool(REFERENCE_WORKERS, workers);
    try {
      const triples = await hammingFullTriples(store, { threshold: opts.threshold, sampled }, pool, reporter);
      // With --verify PLEB keeps only pairs of cosine ≥ the threshold: so does the reference.
      await verifier?.require(tripleEnds(triples));
      return new SampleRecall(store, sampled, verifier === undefined ? triples : verifier.filter(triples), design);
    } finally {
      await pool.close();
    }
  };
}

/** Builds a run's SampleRecall once the first iteration group's pairs are known (the stratified design's strata need them). */

