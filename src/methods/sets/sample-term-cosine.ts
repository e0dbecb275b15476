import type { Chunk } from "../../corpus/vertical.js";
import type { ScoredPairs } from "../../eval/pairs-file.js";
import { DROPPED, tokenHash } from "../../features/terms.js";
import { growableF64, growableU32 } from "../../util/typed-arrays.js";
import type { FeatureOptions } from "../../core/method-options.js";
import { lookup, sampleIndex, type SampleIndex } from "./sample-jaccard.js";
import { scanShard } from "./shard-scan.js";
import { meetsThreshold, unitCosine } from "../../util/similarity-threshold.js";

/**
 * The term-count vectors simhash384 hashes (simhash384.ts: every kept token adds its SHA-384
 * digest ±1 once per occurrence, so the simhash estimates the angle between the documents'
 * token-count vectors, Charikar 2002): per document its distinct kept-token hashes (the
 * hashes of the normalised tokens, features/terms.ts), sorted, and their counts.
 */
function forEachTermVector(chunk: Chunk, options: FeatureOptions, onDoc: (d: number, terms: Float64Array, counts: Float64Array, n: number) => void): void {
  let terms = new Float64Array(1024);
  let counts = new Float64Array(1024);
  let i = 0;
  scanShard(chunk, options, tokenHash(options), (doc) => {
    if (terms.length < doc.tokens.length) (terms = new Float64Array(2 * doc.tokens.length), counts = new Float64Array(2 * doc.tokens.length));
    let m = 0;
    for (const h of doc.tokens) if (h !== DROPPED) terms[m++] = h;
    terms.subarray(0, m).sort();
    let n = 0;
    for (let k = 0; k < m; k++) {
      if (n > 0 && terms[n - 1] === terms[k]) counts[n - 1]++;
      else (terms[n] = terms[k], counts[n++] = 1);
    }
    onDoc(chunk.firstDoc + i++, terms, counts, n);
  });
}

export interface TermChunkTask {
  chunk: Chunk;
  options: FeatureOptions;
  /** Flags per corpus ordinal (shared). */
  sampled: Uint8Array;
}

/** Sample task: the sampled documents of a chunk with their term vectors (terms sorted, integer counts). */
export function sampleTermVectors(task: TermChunkTask): { ordinals: Uint32Array; lengths: Uint32Array; terms: Float64Array; counts: Float64Array } {
  const ordinals = growableU32();
  const lengths = growableU32();
  const terms = growableF64();
  const counts = growableF64();
  forEachTermVector(task.chunk, task.options, (d, t, c, n) => {
    if (task.sampled[d] !== 1) return;
    ordinals.append([d]);
    lengths.append([n]);
    terms.append(t.subarray(0, n));
    counts.append(c.subarray(0, n));
  });
  return { ordinals: ordinals.view().slice(), lengths: lengths.view().slice(), terms: terms.view().slice(), counts: counts.view().slice() };
}

/**
 * The sample's vectors for scoring, inverted: every term of the sample with the rows holding
 * it and the row's integer count of it (`index.weights`), and each row's sum of squared
 * counts. No prefix filtering (lsh-cosine's reference, sample-cosine.ts, leaves a row's
 * frequent terms out of its index and scores the candidates by merging whole rows): raw token
 * counts share their frequent words, so nearly every row stays a candidate of every document
 * and the merges cost more than accumulating every product.
 */
export interface TermSample {
  squares: Float64Array;
  index: SampleIndex & { weights: Float64Array };
}

function inSharedMemory<T extends Uint32Array | Float64Array>(array: T): T {
  const copy = new (array.constructor as new (buffer: SharedArrayBuffer) => T)(new SharedArrayBuffer(array.byteLength));
  copy.set(array as never);
  return copy;
}

export function termSample(ordinals: Uint32Array, lengths: Uint32Array, terms: Float64Array, counts: Float64Array): TermSample {
  const squares = new Float64Array(lengths.length);
  for (let r = 0, k = 0; r < lengths.length; r++) for (const end = k + lengths[r]; k < end; k++) squares[r] += counts[k] * counts[k];
  const index = sampleIndex(ordinals, lengths, terms, counts);
  return { squares: inSharedMemory(squares), index: { ...index, weights: index.weights! } };
}

/**
 * Score task: every pair of a chunk's document with a sampled one whose cosine of term-count
 * vectors is ≥ threshold. The document's counts are multiplied into every row holding each
 * of its terms: the dot products Σ c_a·c_b in integers, exact in any order, so that
 * Σ c_a·c_b / √(Σ c_a² · Σ c_b²) gives exactly 1 for identical vectors. A pair of two
 * sampled documents is taken from the later one's side only.
 */
export function sampleTermCosines(task: TermChunkTask & { sample: TermSample; threshold: number }): ScoredPairs {
  const { sample, sampled, threshold } = task;
  const { index } = sample;
  const dot = new Float64Array(index.ordinals.length);
  const touched = new Uint32Array(index.ordinals.length);
  const a = growableU32();
  const b = growableU32();
  const similarity = growableF64();
  forEachTermVector(task.chunk, task.options, (d, terms, counts, n) => {
    let squares = 0;
    let hits = 0;
    for (let k = 0; k < n; k++) {
      const c = counts[k];
      squares += c * c;
      const e = lookup(index, terms[k]);
      if (e < 0) continue;
      for (let q = index.ptr[e]; q < index.ptr[e + 1]; q++) {
        const r = index.rows[q];
        if (dot[r] === 0) touched[hits++] = r;
        dot[r] += c * index.weights[q];
      }
    }
    for (let h = 0; h < hits; h++) {
      const r = touched[h];
      const cos = unitCosine(dot[r] / Math.sqrt(sample.squares[r] * squares));
      dot[r] = 0;
      const s = index.ordinals[r];
      if (s === d || (sampled[d] === 1 && s > d) || !meetsThreshold(cos, threshold)) continue;
      a.append([Math.min(s, d)]);
      b.append([Math.max(s, d)]);
      similarity.append([cos]);
    }
  });
  return { a: a.view().slice(), b: b.view().slice(), similarity: similarity.view().slice() };
}
