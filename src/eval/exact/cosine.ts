/**
 * Exact all-pairs cosine similarity of in-memory term-count documents (scripts/quality's
 * reference), computed in this thread by the same engine as `vertdup similarity`:
 * `unitRows` + `cosineBlock` over all rows, and `rowCosine` for a single pair.
 *
 * Weights of term t in document d (N documents, df(t) = number of documents containing t):
 *   tf:     w(t, d) = tf(t, d)                      (the raw count)
 *   tfidf:  w(t, d) = tf(t, d) · ln(N / df(t))      (natural log; a term present in every
 *                                                   document gets weight 0)
 * cos(a, b) = Σ_t w(t, a) w(t, b) / (‖w(·, a)‖₂ ‖w(·, b)‖₂), clamped to at most 1. A
 * document whose weights are all zero (no terms, or only terms of df = N under tfidf) has
 * no direction: its similarity to anything is taken as 0, so it is never paired.
 */

import { cosineBlock } from "./cosine-block.js";
import { invertRows, rowCosine, unitRows, type SparseRows } from "../../features/sparse-rows.js";

/** The part of `TermCounts` (src/features/terms.ts) this module needs. */
export interface SparseCounts {
  readonly terms: readonly number[];
  readonly counts: readonly number[];
}

export type Weighting = "tf" | "tfidf";

/** One document's L2-normalised vector: a row of the shared `rows`, or none. */
export interface UnitVector {
  rows: SparseRows;
  /** Row of the document in `rows`; −1 when all its weights are 0. */
  row: number;
  /** Dense term indices (see `weightVectors`) and unit weights of the row (empty without one). */
  index: Uint32Array;
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
 * The weighted vectors of the documents as unit rows (`rows.ordinals[r]` is the document's
 * position; documents without a direction get no row), with term hashes mapped to dense
 * indices 0..V-1 in order of first occurrence. Terms repeated within one document (not
 * produced by `termCounts`, but allowed) have their weights added.
 */
export function weightVectors(
  docs: readonly SparseCounts[],
  weighting: Weighting = "tf",
): { rows: SparseRows; vectors: UnitVector[] } {
  const N = docs.length;
  const df = weighting === "tfidf" ? documentFrequencies(docs) : null;
  const dense = new Map<number, number>();
  const ordinals: number[] = [];
  const rowPtr: number[] = [0];
  const cols: number[] = [];
  const vals: number[] = [];
  const norms: number[] = [];
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
    norms.push(Math.sqrt(sq));
    // Only nonzero weights make the row; a document without any has no row.
    const before = cols.length;
    for (let k = 0; k < idx.length; k++) {
      if (w[k] !== 0) {
        cols.push(idx[k]);
        vals.push(w[k]);
      }
    }
    if (cols.length > before) {
      ordinals.push(i);
      rowPtr.push(cols.length);
    }
  }
  const rows = unitRows(Uint32Array.from(ordinals), Uint32Array.from(rowPtr), Uint32Array.from(cols), Float64Array.from(vals), dense.size);
  const vectors: UnitVector[] = norms.map((norm) => ({ rows, row: -1, index: new Uint32Array(0), weight: new Float64Array(0), norm }));
  for (let r = 0; r < rows.ordinals.length; r++) {
    const v = vectors[rows.ordinals[r]];
    v.row = r;
    v.index = rows.cols.subarray(rows.rowPtr[r], rows.rowPtr[r + 1]);
    v.weight = rows.vals.subarray(rows.rowPtr[r], rows.rowPtr[r + 1]);
  }
  return { rows, vectors };
}

/** rowCosine's dense scratch, zero between calls, grown to the widest rows seen. */
let scratch = new Float64Array(0);

/** Cosine of two vectors from the same `weightVectors` call (0 when either is all-zero). */
export function cosineOf(a: UnitVector, b: UnitVector): number {
  if (a.rows !== b.rows) throw new RangeError("cosineOf: vectors of different weightVectors calls");
  if (a.row < 0 || b.row < 0) return 0;
  if (scratch.length < a.rows.columns) scratch = new Float64Array(a.rows.columns);
  return rowCosine(a.rows, a.row, b.row, scratch);
}

/** All pairs of rows with cosine >= threshold, as document positions (`rows.ordinals`), sorted by (a, b). */
export function allPairsOfRows(rows: SparseRows, threshold: number): SimilarPair[] {
  if (!(threshold > 0 && threshold <= 1)) {
    throw new RangeError(`threshold must be in (0, 1], got ${threshold}`);
  }
  const queries = Uint32Array.from({ length: rows.ordinals.length }, (_, r) => r);
  const block = cosineBlock({ rows, postings: invertRows(rows), queries, threshold, sampled: null });
  const pairs: SimilarPair[] = [];
  for (let k = 0; k < block.a.length; k++) {
    pairs.push({ a: rows.ordinals[block.a[k]], b: rows.ordinals[block.b[k]], similarity: block.similarity[k] });
  }
  return pairs.sort((x, y) => x.a - y.a || x.b - y.b);
}

/** All pairs of documents with cosine >= threshold (see the module comment), by (a, b). */
export function allPairsCosine(docs: readonly SparseCounts[], opts: CosineOptions): SimilarPair[] {
  return allPairsOfRows(weightVectors(docs, opts.weighting ?? "tf").rows, opts.threshold);
}
