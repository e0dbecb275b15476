import type { PrepareManifest } from "../coordinator/prepare-manifest.js";
import type { ScoredPairs } from "../eval/pairs-file.js";
import { growableF64, growableU32 } from "../util/typed-arrays.js";
import { forEachWorkdirVector } from "./workdir-vectors.js";
import { invertRows, unitRows } from "./sparse-rows.js";

/**
 * Exact cosine of every sampled document with every document of a prepared work directory
 * (the thesis's `similarity` with a sample_list), streaming: a first pass picks the sampled
 * vectors and indexes them by term; a second pass scores each corpus vector against that
 * index only (Σ over its terms of the sampled documents holding the term), so memory is the
 * sample's vectors, one shard of counts and the pairs found — never the corpus's vectors.
 * Returns each unordered pair with a sampled document and cosine ≥ threshold once, as corpus
 * ordinals a < b. The sums run in a fixed order (terms of the corpus document in order).
 */
export function sampleCosines(workdir: string, prepared: PrepareManifest, sampled: Uint8Array, threshold: number): ScoredPairs {
  const ordinals = growableU32();
  const rowPtr = growableU32();
  const cols = growableU32();
  const vals = growableF64();
  rowPtr.append([0]);
  const columns = forEachWorkdirVector(workdir, prepared, (ordinal, c, v, length) => {
    if (sampled[ordinal] !== 1) return;
    ordinals.append([ordinal]);
    cols.append(c.subarray(0, length));
    vals.append(v.subarray(0, length));
    rowPtr.append([cols.length]);
  });
  const sample = unitRows(ordinals.view(), rowPtr.view(), cols.view(), vals.view(), columns);
  const index = invertRows(sample);
  const acc = new Float64Array(sample.ordinals.length);
  const touched = new Uint32Array(sample.ordinals.length);
  const a = growableU32();
  const b = growableU32();
  const similarity = growableF64();
  forEachWorkdirVector(workdir, prepared, (d, c, v, length) => {
    let sq = 0;
    for (let k = 0; k < length; k++) sq += v[k] * v[k];
    const norm = Math.sqrt(sq);
    let hits = 0;
    for (let k = 0; k < length; k++) {
      const w = v[k] / norm;
      for (let p = index.termPtr[c[k]]; p < index.termPtr[c[k] + 1]; p++) {
        const r = index.rows[p];
        if (acc[r] === 0) touched[hits++] = r;
        acc[r] += w * index.weights[p];
      }
    }
    for (let h = 0; h < hits; h++) {
      const r = touched[h];
      const cos = Math.min(1, acc[r]);
      acc[r] = 0;
      const s = sample.ordinals[r];
      // A pair of two sampled documents is taken from the later one's side only.
      if (s === d || (sampled[d] === 1 && s > d) || cos < threshold) continue;
      a.append([Math.min(s, d)]);
      b.append([Math.max(s, d)]);
      similarity.append([cos]);
    }
  });
  return { a: a.view(), b: b.view(), similarity: similarity.view() };
}
