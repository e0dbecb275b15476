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
/**
 * `--partition-attr`: each signature's documents split by partition, one unit per (signature,
 * partition), as the outputs' graph holds them (partitionGraph: an identity group per value,
 * an edge kept in each value both ends hold). Unit u's documents are docs[offsets[u] ..
 * offsets[u + 1]); signature s's units are [first[s], first[s + 1]), by partition (`part`).
 */
export interface PartitionUnits {
  count: number;
  offsets: Uint32Array;
  docs: Uint32Array;
  first: Uint32Array;
  part: Uint32Array;
}

/** The PartitionUnits of `store` whose documents have partition numbers `docPart` (partitionNumbers). */
export function partitionUnits(store: SignatureStore, docPart: Uint32Array): PartitionUnits {
  const first = new Uint32Array(store.count + 1);
  const offsets: number[] = [0];
  const docs = new Uint32Array(store.docs.length);
  const part: number[] = [];
  let at = 0;
  for (let s = 0; s < store.count; s++) {
    const own = Array.from(store.docs.subarray(store.offsets[s], store.offsets[s + 1])).sort((a, b) => docPart[a] - docPart[b] || a - b);
    for (let k = 0; k < own.length; k++) {
      if (k === 0 || docPart[own[k]] !== docPart[own[k - 1]]) {
        if (k > 0) offsets.push(at);
        part.push(docPart[own[k]]);
      }
      docs[at++] = own[k];
    }
    if (own.length > 0) offsets.push(at);
    first[s + 1] = part.length;
  }
  return { count: part.length, offsets: Uint32Array.from(offsets), docs, first, part: Uint32Array.from(part) };
}

/** Calls visit(u, v) for each unit u of signature a and v of signature b of one partition. */
function sharedUnits(units: PartitionUnits, a: number, b: number, visit: (u: number, v: number) => void): void {
  let u = units.first[a];
  let v = units.first[b];
  while (u < units.first[a + 1] && v < units.first[b + 1]) {
    if (units.part[u] < units.part[v]) u++;
    else if (units.part[u] > units.part[v]) v++;
    else visit(u++, v++);
  }
}

/** Signature triples (i, j, distance) as the triples of their units in one partition. */
function unitTriples(units: PartitionUnits, triples: Uint32Array): Uint32Array {
  const out: number[] = [];
  for (let k = 0; k < triples.length; k += 3) sharedUnits(units, triples[k], triples[k + 1], (u, v) => out.push(u, v, triples[k + 2]));
  return Uint32Array.from(out);
}

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

  /**
   * `triples`: (i, j, distance) of hammingFullTriples with the sample; `design`: the one it was
   * drawn by (absent: uniform); `units` (`--partition-attr`): the recall is that of the pairs
   * within one partition, the units standing for the signatures.
   */
  constructor(signatures: SignatureStore, sampled: Uint8Array, signatureTriples: Uint32Array, readonly design?: StratifiedDesign, private readonly units?: PartitionUnits) {
    const store = units ?? signatures;
    const triples = units === undefined ? signatureTriples : unitTriples(units, signatureTriples);
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

  /** Joins the signatures of an iteration group's pairs (its forest is enough); with units, their units of each partition both hold. */
  addColumns(columns: Pick<PairColumns, "i" | "j">): void {
    const { units } = this;
    for (let k = 0; k < columns.i.length; k++) {
      if (units === undefined) this.sets.union(columns.i[k], columns.j[k]);
      else sharedUnits(units, columns.i[k], columns.j[k], (u, v) => this.sets.union(u, v));
    }
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
  units?: PartitionUnits,
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
      return new SampleRecall(store, sampled, verifier === undefined ? triples : verifier.filter(triples), design, units);
    } finally {
      await pool.close();
    }
  };
}

/** Builds a run's SampleRecall once the first iteration group's pairs are known (the stratified design's strata need them). */

