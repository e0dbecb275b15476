import type { WorkerPool } from "../coordinator/pool.js";
import { chunkCorpus, type Chunk, type ReadLimits } from "../corpus/chunker.js";
import { joinScoredPairs, type ScoredPairs } from "../eval/pairs-file.js";
import { DROPPED, tokenHash } from "../features/terms.js";
import { concatF64, concatU32, growableF64, growableU32 } from "../util/typed-arrays.js";
import type { FeatureOptions } from "./method-options.js";
import { lookup, sampleIndex, type SampleIndex } from "./sample-jaccard.js";
import { scanShard } from "./shard-scan.js";

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

interface TermChunkTask {
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
 * The sample's vectors for scoring: every row whole (sorted terms, integer counts, the sum of
 * squared counts) and an inverted index of only part of each row (prefix filtering, as the
 * lsh-cosine reference does, sample-cosine.ts): a row's terms held by the most sampled rows
 * are left out as long as their unit weights' norm stays below LEFT_OUT_SHARE · threshold.
 * Weights are positive, so a document sharing none of a row's indexed terms has a cosine
 * with it of at most that norm (Cauchy–Schwarz): below the threshold.
 */
export interface TermSample {
  rowPtr: Uint32Array;
  terms: Float64Array;
  counts: Float64Array;
  squares: Float64Array;
  /** The indexed part: rows per term, with the row's unit weight of that term (`index.weights`). */
  index: SampleIndex & { weights: Float64Array };
  /** Norm of each row's unit weights left out of the index. */
  leftOut: Float64Array;
}

/** The share of the threshold a row's left-out terms may reach (sample-cosine.ts measured 0.8 best). */
const LEFT_OUT_SHARE = 0.8;

function inSharedMemory<T extends Uint32Array | Float64Array>(array: T): T {
  const copy = new (array.constructor as new (buffer: SharedArrayBuffer) => T)(new SharedArrayBuffer(array.byteLength));
  copy.set(array as never);
  return copy;
}

export function termSample(ordinals: Uint32Array, lengths: Uint32Array, terms: Float64Array, counts: Float64Array, threshold: number): TermSample {
  const rows = lengths.length;
  const rowPtr = new Uint32Array(rows + 1);
  for (let r = 0; r < rows; r++) rowPtr[r + 1] = rowPtr[r] + lengths[r];
  const squares = new Float64Array(rows);
  for (let r = 0; r < rows; r++) for (let k = rowPtr[r]; k < rowPtr[r + 1]; k++) squares[r] += counts[k] * counts[k];
  // How many sampled rows hold each term: the frequent ones are left out first.
  const all = sampleIndex(ordinals, lengths, terms);
  const frequency = (term: number) => {
    const e = lookup(all, term);
    return all.ptr[e + 1] - all.ptr[e];
  };
  const leftOut = new Float64Array(rows);
  const keptLengths = new Uint32Array(rows);
  const kept = growableF64();
  const keptWeights = growableF64();
  for (let r = 0; r < rows; r++) {
    const from = rowPtr[r];
    const norm = Math.sqrt(squares[r]);
    const order = Array.from({ length: lengths[r] }, (_, k) => from + k).sort((x, y) => frequency(terms[y]) - frequency(terms[x]) || terms[x] - terms[y]);
    let sq = 0;
    let k = 0;
    for (; k < order.length; k++) {
      const w = counts[order[k]] / norm;
      if (Math.sqrt(sq + w * w) >= LEFT_OUT_SHARE * threshold) break;
      sq += w * w;
    }
    leftOut[r] = Math.sqrt(sq);
    // The indexed terms in the row's (sorted) order, as sampleIndex takes them.
    const indexed = order.slice(k).sort((x, y) => x - y);
    keptLengths[r] = indexed.length;
    kept.append(indexed.map((p) => terms[p]));
    keptWeights.append(indexed.map((p) => counts[p] / norm));
  }
  const index = sampleIndex(ordinals, keptLengths, kept.view().slice(), keptWeights.view().slice());
  return { rowPtr: inSharedMemory(rowPtr), terms: inSharedMemory(terms), counts: inSharedMemory(counts), squares: inSharedMemory(squares), index: { ...index, weights: index.weights! }, leftOut: inSharedMemory(leftOut) };
}

/**
 * Score task: every pair of a chunk's document with a sampled one whose cosine of term-count
 * vectors is ≥ threshold. The document's unit weights are summed against the partial index;
 * a row whose partial sum plus its left-out norm can reach the threshold is scored exactly,
 * in integers: Σ c_a·c_b / √(Σ c_a² · Σ c_b²) (identical vectors give exactly 1). A pair of
 * two sampled documents is taken from the later one's side only.
 */
export function sampleTermCosines(task: TermChunkTask & { sample: TermSample; threshold: number }): ScoredPairs {
  const { sample, sampled, threshold } = task;
  const { index } = sample;
  const acc = new Float64Array(index.ordinals.length);
  const touched = new Uint32Array(index.ordinals.length);
  const a = growableU32();
  const b = growableU32();
  const similarity = growableF64();
  forEachTermVector(task.chunk, task.options, (d, terms, counts, n) => {
    let squares = 0;
    for (let k = 0; k < n; k++) squares += counts[k] * counts[k];
    const norm = Math.sqrt(squares);
    let hits = 0;
    for (let k = 0; k < n; k++) {
      const e = lookup(index, terms[k]);
      if (e < 0) continue;
      const w = counts[k] / norm;
      for (let q = index.ptr[e]; q < index.ptr[e + 1]; q++) {
        const r = index.rows[q];
        if (acc[r] === 0) touched[hits++] = r;
        acc[r] += w * index.weights[q];
      }
    }
    for (let h = 0; h < hits; h++) {
      const r = touched[h];
      const bound = acc[r] + sample.leftOut[r];
      acc[r] = 0;
      const s = index.ordinals[r];
      // The tolerance keeps rounding in the bound from dropping a pair exactly at the threshold.
      if (s === d || (sampled[d] === 1 && s > d) || bound < threshold - 1e-9) continue;
      let dot = 0;
      for (let p = sample.rowPtr[r], k = 0; p < sample.rowPtr[r + 1] && k < n; ) {
        if (sample.terms[p] < terms[k]) p++;
        else if (sample.terms[p] > terms[k]) k++;
        else dot += sample.counts[p++] * counts[k++];
      }
      const cos = Math.min(1, dot / Math.sqrt(sample.squares[r] * squares));
      if (cos < threshold) continue;
      a.append([Math.min(s, d)]);
      b.append([Math.max(s, d)]);
      similarity.append([cos]);
    }
  });
  return { a: a.view().slice(), b: b.view().slice(), similarity: similarity.view().slice() };
}

/**
 * Exact cosine of the token-count vectors (simhash384's) of every sampled document with every
 * document of the corpus, reading the corpus twice on the pool (simhash384 keeps only the
 * hashes): a first pass picks the sampled vectors, which are indexed (termSample); a second
 * scores each chunk's documents against them. Memory: the sample's vectors and index, the
 * chunks in flight and the pairs found. Returns each unordered pair with a sampled document
 * and cosine ≥ threshold once, as corpus ordinals a < b, in chunk order.
 */
export async function sampleTermCosinePairs(inputs: readonly string[], chunkBytes: number, limits: ReadLimits, options: FeatureOptions, sampled: Uint8Array, threshold: number, pool: WorkerPool): Promise<ScoredPairs> {
  const flags = new Uint8Array(new SharedArrayBuffer(sampled.length));
  flags.set(sampled);
  async function overChunks<T>(name: string, extra: object): Promise<T[]> {
    const results: Promise<T>[] = [];
    for await (const chunk of chunkCorpus(inputs, chunkBytes, limits)) {
      const own = new Uint8Array(chunk.bytes.length);
      own.set(chunk.bytes);
      const task = { chunk: { ...chunk, bytes: Buffer.from(own.buffer) }, options, sampled: flags, ...extra };
      results.push((await pool.submit<T>(name, task, [own.buffer])).result);
    }
    return Promise.all(results);
  }
  const parts = await overChunks<ReturnType<typeof sampleTermVectors>>("sampleTermVectors", {});
  const sample = termSample(concatU32(parts.map((p) => p.ordinals)), concatU32(parts.map((p) => p.lengths)), concatF64(parts.map((p) => p.terms)), concatF64(parts.map((p) => p.counts)), threshold);
  return joinScoredPairs(await overChunks<ScoredPairs>("sampleTermCosines", { sample, threshold }));
}
