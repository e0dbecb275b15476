import type { ShardCounts } from "./count-shard.js";
import { readKeptTerms, vocabularyIndex } from "./vocabulary.js";
import type { PrepareManifest } from "./prepare-manifest.js";
import { shardFile, vocabularyFile } from "../workdir/layout.js";
import { readRunFileSync } from "../util/run-file.js";
import type { NumberMap } from "../util/number-map.js";
import { growableF64, growableU32 } from "../util/typed-arrays.js";
import type { SparseRows } from "./sparse-rows.js";

/** One shard's rows, already scaled to unit length, in exact-size arrays. */
interface RowsPart {
  ordinals: Uint32Array;
  lengths: Uint32Array;
  cols: Uint32Array;
  vals: Float64Array;
}

/** The unit rows of one shard's documents (see loadWorkdirVectors): each vector divided by its L2 norm. */
function shardRows(part: CountsPart, weights: VectorWeights): RowsPart {
  const ordinals = growableU32(1 << 10);
  const lengths = growableU32(1 << 10);
  const cols = growableU32();
  const vals = growableF64();
  forEachCountsVector([part], weights, (ordinal, c, v, _counts, length) => {
    let sq = 0;
    for (let k = 0; k < length; k++) sq += v[k] * v[k];
    const norm = Math.sqrt(sq);
    for (let k = 0; k < length; k++) v[k] /= norm;
    ordinals.append([ordinal]);
    lengths.append([length]);
    cols.append(c.subarray(0, length));
    vals.append(v.subarray(0, length));
  });
  return { ordinals: ordinals.view().slice(), lengths: lengths.view().slice(), cols: cols.view().slice(), vals: vals.view().slice() };
}

function sharedU32(n: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(4 * n));
}

/** The shards' parts as one SparseRows in SharedArrayBuffers; each part is released once copied. */
function joinParts(parts: (RowsPart | undefined)[], columns: number): SparseRows {
  let rows = 0;
  let entries = 0;
  for (const p of parts) {
    rows += (p as RowsPart).ordinals.length;
    entries += (p as RowsPart).cols.length;
  }
  const out: SparseRows = { ordinals: sharedU32(rows), rowPtr: sharedU32(rows + 1), cols: sharedU32(entries), vals: new Float64Array(new SharedArrayBuffer(8 * entries)), columns };
  let row = 0;
  let k = 0;
  for (let s = 0; s < parts.length; s++) {
    const part = parts[s] as RowsPart;
    parts[s] = undefined;
    out.ordinals.set(part.ordinals, row);
    out.cols.set(part.cols, k);
    out.vals.set(part.vals, k);
    for (const length of part.lengths) {
      k += length;
      out.rowPtr[++row] = k;
    }
  }
  return out;
}

/**
 * The document vectors of a prepared work directory, exactly as `prepare` signed them:
 * only the kept vocabulary (vocab.zst, already reduced by min/max df) counts, a component is
 * tf(t, d) · factor(t) with factor = ln(N / df(t)) under tfidf (N = all documents of the
 * corpus) or 1 under tf, terms of factor 0 are left out, and a document with no remaining
 * term has no vector (prepare gives it no signature). Term indices are ranks in vocab.zst
 * (decreasing df). Rows are unit rows (as `unitRows` makes them) in SharedArrayBuffers.
 * Memory: 12 bytes per kept (document, term), at most twice that while loading (the
 * shards' parts, then the rows). PLEB's verification keeps counts instead (count-rows.ts).
 */
export function loadWorkdirVectors(workdir: string, prepared: PrepareManifest): SparseRows {
  const weights = workdirWeights(workdir, prepared);
  const parts = workdirCountsParts(workdir, 0, prepared.counts.shards).map((part) => shardRows(part, weights));
  return joinParts(parts, weights.factor.length);
}

/** The kept vocabulary's rank of each term hash and its weight factor (vocabularyIndex). */
export interface VectorWeights {
  rank: NumberMap;
  factor: Float64Array;
  /**
   * The factor of a term not in `rank`, when `rank` holds only the repeated terms
   * (signingIndex: such a term has df = 1); forEachCountsVector visits it with column
   * ONCE_COLUMN. Absent: such a term is not kept.
   */
  onceFactor?: number;
}

/** The column forEachCountsVector gives a kept term of df = 1 under VectorWeights.onceFactor. */
export const ONCE_COLUMN = 0xffff_ffff;

export function workdirWeights(workdir: string, prepared: PrepareManifest): VectorWeights {
  const kept = readKeptTerms(vocabularyFile(workdir));
  const { ranks, factors } = vocabularyIndex(kept, prepared.counts.documents, prepared.options.weighting);
  return { rank: ranks, factor: factors };
}

/** A shard's term counts file, and what to add to its ordinals (a saved index's place in a run with --against). */
export interface CountsPart {
  path: string;
  offset: number;
}

/** The counts files of shards `from`..`to` − 1 of a work directory. */
export function workdirCountsParts(workdir: string, from: number, to: number): CountsPart[] {
  return Array.from({ length: to - from }, (_, k) => ({ path: shardFile(workdir, from + k, "counts"), offset: 0 }));
}

/**
 * Visits the vectors of the documents of `parts` in order, unnormalised: the kept terms'
 * ranks, tf · factor and tf, in the document's term order (first occurrence), in scratch
 * arrays valid only during the call (a visitor may overwrite them); one shard's counts are in
 * memory at a time. Ordinals are the part's plus its offset; `only` (a flag per such
 * ordinal) skips the other documents.
 */
export function forEachCountsVector(
  parts: readonly CountsPart[],
  weights: VectorWeights,
  visit: (ordinal: number, cols: Uint32Array, vals: Float64Array, counts: Uint32Array, length: number) => void,
  only?: Uint8Array,
): void {
  const { rank, factor } = weights;
  const once = weights.onceFactor ?? 0;
  let cols = new Uint32Array(1024);
  let vals = new Float64Array(1024);
  let tfs = new Uint32Array(1024);
  for (const part of parts) {
    const [counts] = readRunFileSync<ShardCounts>(part.path);
    let at = 0;
    for (let d = 0; d < counts.ordinals.length; d++) {
      const end = at + counts.lengths[d];
      const ordinal = counts.ordinals[d] + part.offset;
      if (only !== undefined && only[ordinal] === 0) {
        at = end;
        continue;
      }
      if (cols.length < end - at) {
        cols = new Uint32Array(end - at);
        vals = new Float64Array(end - at);
        tfs = new Uint32Array(end - at);
      }
      let length = 0;
      for (; at < end; at++) {
        const r = rank.get(counts.terms[at]);
        const f = r === undefined ? once : factor[r];
        if (f === 0) continue;
        cols[length] = r ?? ONCE_COLUMN;
        tfs[length] = counts.counts[at];
        vals[length++] = counts.counts[at] * f;
      }
      if (length > 0) visit(ordinal, cols, vals, tfs, length);
    }
  }
}
