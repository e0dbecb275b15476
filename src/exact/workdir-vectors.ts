import type { ShardCounts } from "../features/count-shard.js";
import type { PrepareManifest } from "../coordinator/prepare-manifest.js";
import { shardFile, vocabularyFile } from "../coordinator/workdir.js";
import { readRunFileSync } from "../runs/run-file.js";
import { NumberMap } from "../util/number-map.js";
import { growableF64, growableU32 } from "../util/typed-arrays.js";
import type { SparseRows } from "./sparse-rows.js";

/** One shard's rows, already scaled to unit length, in exact-size arrays. */
interface RowsPart {
  ordinals: Uint32Array;
  lengths: Uint32Array;
  cols: Uint32Array;
  vals: Float64Array;
}

function sharedU32(n: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(4 * n));
}

/**
 * The document vectors of a prepared work directory, exactly as `prepare` signed them:
 * only the kept vocabulary (vocab.zst, already reduced by min/max df) counts, a component is
 * tf(t, d) · factor(t) with factor = ln(N / df(t)) under tfidf (N = all documents of the
 * corpus) or 1 under tf, terms of factor 0 are left out, and a document with no remaining
 * term has no vector (prepare gives it no signature). Term indices are ranks in vocab.zst
 * (decreasing df). Rows are unit rows (as `unitRows` makes them) in SharedArrayBuffers.
 *
 * `only` (a flag per corpus ordinal) keeps the rows of those documents alone (PLEB's
 * verification needs one document per distinct signature). Memory: 12 bytes per kept
 * (document, term), at most twice that while loading (the shards' parts, then the rows).
 */
export function loadWorkdirVectors(workdir: string, prepared: PrepareManifest, only?: Uint8Array): SparseRows {
  const [vocab] = readRunFileSync<{ terms: Float64Array; dfs: Uint32Array }>(vocabularyFile(workdir));
  const N = prepared.counts.documents;
  const tfidf = prepared.options.weighting === "tfidf";
  const rank = new NumberMap(vocab.terms.length);
  const factor = new Float64Array(vocab.terms.length);
  for (let r = 0; r < vocab.terms.length; r++) {
    rank.set(vocab.terms[r], r);
    factor[r] = tfidf ? Math.log(N / vocab.dfs[r]) : 1;
  }
  const parts: (RowsPart | undefined)[] = [];
  let rows = 0;
  let entries = 0;
  for (let s = 0; s < prepared.counts.shards; s++) {
    const [counts] = readRunFileSync<ShardCounts>(shardFile(workdir, s, "counts"));
    const ordinals = growableU32();
    const lengths = growableU32();
    const cols = growableU32();
    const vals = growableF64();
    let at = 0;
    for (let d = 0; d < counts.ordinals.length; d++) {
      const end = at + counts.lengths[d];
      if (only !== undefined && only[counts.ordinals[d]] === 0) {
        at = end;
        continue;
      }
      const before = cols.length;
      for (; at < end; at++) {
        const r = rank.get(counts.terms[at]);
        if (r === undefined || factor[r] === 0) continue;
        cols.reserve(1)[cols.length++] = r;
        vals.reserve(1)[vals.length++] = counts.counts[at] * factor[r];
      }
      if (cols.length === before) continue;
      let sq = 0;
      for (let k = before; k < cols.length; k++) sq += vals.values[k] * vals.values[k];
      const norm = Math.sqrt(sq);
      for (let k = before; k < cols.length; k++) vals.values[k] /= norm;
      ordinals.reserve(1)[ordinals.length++] = counts.ordinals[d];
      lengths.reserve(1)[lengths.length++] = cols.length - before;
    }
    parts.push({ ordinals: ordinals.view().slice(), lengths: lengths.view().slice(), cols: cols.view().slice(), vals: vals.view().slice() });
    rows += ordinals.length;
    entries += cols.length;
  }
  const out: SparseRows = {
    ordinals: sharedU32(rows),
    rowPtr: sharedU32(rows + 1),
    cols: sharedU32(entries),
    vals: new Float64Array(new SharedArrayBuffer(8 * entries)),
    columns: vocab.terms.length,
  };
  let row = 0;
  let k = 0;
  for (let s = 0; s < parts.length; s++) {
    const part = parts[s] as RowsPart;
    parts[s] = undefined;
    out.ordinals.set(part.ordinals, row);
    for (const length of part.lengths) {
      k += length;
      out.rowPtr[++row] = k;
    }
    out.cols.set(part.cols, k - part.cols.length);
    out.vals.set(part.vals, k - part.vals.length);
  }
  return out;
}
