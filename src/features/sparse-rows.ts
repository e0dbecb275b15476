import { unitCosine } from "../util/similarity-threshold.js";
/**
 * Sparse document vectors in compressed-row form, in SharedArrayBuffers so that workers of
 * the exact all-pairs cosine read them without copying. Row r is the vector of corpus
 * document `ordinals[r]`; its components are cols/vals[rowPtr[r] .. rowPtr[r+1]).
 */
export interface SparseRows {
  ordinals: Uint32Array;
  rowPtr: Uint32Array;
  cols: Uint32Array;
  vals: Float64Array;
  /** Term indices are < columns. */
  columns: number;
}

function shared<T extends Uint32Array | Float64Array>(a: T): T {
  const out = new (a.constructor as { new (b: SharedArrayBuffer): T })(new SharedArrayBuffer(a.byteLength));
  out.set(a);
  return out;
}

/**
 * Rows scaled to unit L2 norm: v / ‖v‖₂, so that cos(a, b) = Σ_t a_t b_t. Every row must
 * have a nonzero component (empty vectors are dropped before).
 */
export function unitRows(ordinals: Uint32Array, rowPtr: Uint32Array, cols: Uint32Array, vals: Float64Array, columns: number): SparseRows {
  const unit = new Float64Array(vals.length);
  for (let r = 0; r + 1 < rowPtr.length; r++) {
    let sq = 0;
    for (let k = rowPtr[r]; k < rowPtr[r + 1]; k++) sq += vals[k] * vals[k];
    const norm = Math.sqrt(sq);
    if (!(norm > 0)) throw new RangeError(`row ${r} has no nonzero component`);
    for (let k = rowPtr[r]; k < rowPtr[r + 1]; k++) unit[k] = vals[k] / norm;
  }
  return { ordinals: shared(ordinals), rowPtr: shared(rowPtr), cols: shared(cols), vals: shared(unit), columns };
}

/**
 * The inverted index of the rows: for term t, the rows that contain it in increasing order,
 * with their weights, at postings[termPtr[t] .. termPtr[t+1]).
 */
export interface Postings {
  termPtr: Uint32Array;
  rows: Uint32Array;
  weights: Float64Array;
}

export function invertRows(m: SparseRows): Postings {
  const termPtr = new Uint32Array(new SharedArrayBuffer(4 * (m.columns + 1)));
  for (let k = 0; k < m.cols.length; k++) termPtr[m.cols[k] + 1]++;
  for (let t = 0; t < m.columns; t++) termPtr[t + 1] += termPtr[t];
  const fill = termPtr.slice(0, m.columns);
  const rows = new Uint32Array(new SharedArrayBuffer(4 * m.cols.length));
  const weights = new Float64Array(new SharedArrayBuffer(8 * m.cols.length));
  for (let r = 0; r + 1 < m.rowPtr.length; r++) {
    for (let k = m.rowPtr[r]; k < m.rowPtr[r + 1]; k++) {
      const at = fill[m.cols[k]]++;
      rows[at] = r;
      weights[at] = m.vals[k];
    }
  }
  return { termPtr, rows, weights };
}

/** Exact cosine of rows a and b (dot product of unit rows, util/similarity-threshold.ts unitCosine). */
export function rowCosine(m: SparseRows, a: number, b: number, scratch: Float64Array): number {
  for (let k = m.rowPtr[a]; k < m.rowPtr[a + 1]; k++) scratch[m.cols[k]] = m.vals[k];
  let dot = 0;
  for (let k = m.rowPtr[b]; k < m.rowPtr[b + 1]; k++) dot += scratch[m.cols[k]] * m.vals[k];
  for (let k = m.rowPtr[a]; k < m.rowPtr[a + 1]; k++) scratch[m.cols[k]] = 0;
  return unitCosine(dot);
}
