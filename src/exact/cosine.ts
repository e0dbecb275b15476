/**
 * Exact all-pairs cosine similarity of sparse term-count vectors (the thesis's
 * `similarity` application): the reference against which signatures and PLEB are measured.
 *
 * Weights of term t in document d (N documents, df(t) = number of documents containing t):
 *   tf:     w(t, d) = tf(t, d)                      (the raw count)
 *   tfidf:  w(t, d) = tf(t, d) · ln(N / df(t))      (natural log; a term present in every
 *                                                   document gets weight 0)
 * cos(a, b) = Σ_t w(t, a) w(t, b) / (‖w(·, a)‖₂ ‖w(·, b)‖₂), clamped to at most 1. A
 * document whose weights are all zero (no terms, or only terms of df = N under tfidf) has
 * no direction: its similarity to anything is taken as 0, so it is never paired.
 *
 * Method: the vectors are L2-normalised, then each document in turn is scored against the
 * documents before it through an inverted index (term → postings of earlier documents),
 * accumulating dot products into a dense array and resetting only the touched entries. The
 * cost is Σ_t df(t)² / 2 multiply-adds, not N² dense dot products; for a few thousand
 * documents of a few hundred tokens this takes well under a second. All loops run in a
 * fixed order, so results are bit-for-bit reproducible.
 */

/** The part of `TermCounts` (src/features/terms.ts) this module needs. */
export interface SparseCounts {
  readonly terms: readonly number[];
  readonly counts: readonly number[];
}

export type Weighting = "tf" | "tfidf";

/** An L2-normalised sparse vector over dense term indices. */
export interface UnitVector {
  /** Dense term indices (see `weightVectors`), in the document's own term order. */
  index: Int32Array;
  weight: Float64Array;
  /** L2 norm of the weights before normalisation (0 for an all-zero vector). */
  norm: number;
}

export interface SimilarPair {
  /** Positions in the input array, a < b. */
  a: number;
  b: number;
  similarity: number;
}

export interface CosineOptions {
  /** Report pairs with similarity >= threshold; must be in (0, 1]. */
  threshold: number;
  /** Default "tf". */
  weighting?: Weighting;
}

/** Document frequency of every term: in how many of the documents it occurs. */
export function documentFrequencies(docs: readonly SparseCounts[]): Map<number, number> {
  const df = new Map<number, number>();
  for (const d of docs) {
    for (const t of d.terms) df.set(t, (df.get(t) ?? 0) + 1);
  }
  return df;
}

function checkDoc(d: SparseCounts, i: number): void {
  if (d.terms.length !== d.counts.length) {
    throw new RangeError(`document ${i}: ${d.terms.length} terms but ${d.counts.length} counts`);
  }
}

/**
 * L2-normalised weight vectors of the documents, with term hashes mapped to dense indices
 * 0..V-1 in order of first occurrence. Terms repeated within one document (not produced by
 * `termCounts`, but allowed) have their counts added.
 */
export function weightVectors(
  docs: readonly SparseCounts[],
  weighting: Weighting = "tf",
): { vectors: UnitVector[]; vocabularySize: number } {
  const N = docs.length;
  const df = weighting === "tfidf" ? documentFrequencies(docs) : null;
  const dense = new Map<number, number>();
  const vectors: UnitVector[] = [];
  for (let i = 0; i < N; i++) {
    const d = docs[i];
    checkDoc(d, i);
    const local = new Map<number, number>(); // dense index → position in this vector
    const idx: number[] = [];
    const w: number[] = [];
    for (let k = 0; k < d.terms.length; k++) {
      const t = d.terms[k];
      const c = d.counts[k];
      if (!(c >= 0)) throw new RangeError(`document ${i}: negative or NaN count ${c}`);
      let weight = c;
      if (df !== null) weight *= Math.log(N / (df.get(t) ?? N));
      let j = dense.get(t);
      if (j === undefined) {
        j = dense.size;
        dense.set(t, j);
      }
      const at = local.get(j);
      if (at === undefined) {
        local.set(j, idx.length);
        idx.push(j);
        w.push(weight);
      } else w[at] += weight;
    }
    let sq = 0;
    for (const x of w) sq += x * x;
    const norm = Math.sqrt(sq);
    // Keep only nonzero weights; an all-zero vector stays empty.
    const keepIdx: number[] = [];
    const keepW: number[] = [];
    if (norm > 0) {
      for (let k = 0; k < idx.length; k++) {
        if (w[k] !== 0) {
          keepIdx.push(idx[k]);
          keepW.push(w[k] / norm);
        }
      }
    }
    vectors.push({ index: Int32Array.from(keepIdx), weight: Float64Array.from(keepW), norm });
  }
  return { vectors, vocabularySize: dense.size };
}

/** Cosine of two vectors from the same `weightVectors` call (0 when either is all-zero). */
export function cosineOf(a: UnitVector, b: UnitVector): number {
  if (a.index.length === 0 || b.index.length === 0) return 0;
  const [small, large] = a.index.length <= b.index.length ? [a, b] : [b, a];
  const pos = new Map<number, number>();
  for (let k = 0; k < large.index.length; k++) pos.set(large.index[k], k);
  let dot = 0;
  for (let k = 0; k < small.index.length; k++) {
    const at = pos.get(small.index[k]);
    if (at !== undefined) dot += small.weight[k] * large.weight[at];
  }
  return Math.min(1, dot);
}

/**
 * All pairs of unit vectors with cosine >= threshold, sorted by (a, b). `vocabularySize`
 * bounds the dense term indices.
 */
export function allPairsOfVectors(
  vectors: readonly UnitVector[],
  vocabularySize: number,
  threshold: number,
): SimilarPair[] {
  if (!(threshold > 0 && threshold <= 1)) {
    throw new RangeError(`threshold must be in (0, 1], got ${threshold}`);
  }
  const N = vectors.length;
  // Postings as growable per-term arrays of (doc, weight), filled as documents are seen.
  const postDoc: number[][] = Array.from({ length: vocabularySize }, () => []);
  const postW: number[][] = Array.from({ length: vocabularySize }, () => []);
  const acc = new Float64Array(N);
  const seen = new Uint8Array(N);
  const touched: number[] = [];
  const pairs: SimilarPair[] = [];
  for (let i = 0; i < N; i++) {
    const v = vectors[i];
    for (let k = 0; k < v.index.length; k++) {
      const t = v.index[k];
      const wi = v.weight[k];
      const docs = postDoc[t];
      const ws = postW[t];
      for (let p = 0; p < docs.length; p++) {
        const j = docs[p];
        if (seen[j] === 0) {
          seen[j] = 1;
          touched.push(j);
        }
        acc[j] += wi * ws[p];
      }
    }
    touched.sort((x, y) => x - y);
    for (const j of touched) {
      const s = Math.min(1, acc[j]);
      if (s >= threshold) pairs.push({ a: j, b: i, similarity: s });
      acc[j] = 0;
      seen[j] = 0;
    }
    touched.length = 0;
    for (let k = 0; k < v.index.length; k++) {
      postDoc[v.index[k]].push(i);
      postW[v.index[k]].push(v.weight[k]);
    }
  }
  pairs.sort((x, y) => x.a - y.a || x.b - y.b);
  return pairs;
}

/** All pairs of documents with cosine >= threshold (see the module comment), by (a, b). */
export function allPairsCosine(docs: readonly SparseCounts[], opts: CosineOptions): SimilarPair[] {
  const { vectors, vocabularySize } = weightVectors(docs, opts.weighting ?? "tf");
  return allPairsOfVectors(vectors, vocabularySize, opts.threshold);
}
