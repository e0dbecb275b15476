import { join } from "node:path";
import { hashSequence, mix53to32 } from "../features/hash.js";
import { keptHashes, shingles, tokenHash, tokenHashes } from "../features/terms.js";
import type { NormalizeOptions } from "../features/normalize.js";
import { encodeRecords, readRunFileSync } from "../runs/run-file.js";
import { shardName } from "../coordinator/workdir.js";
import { writeAtomic } from "../util/atomic.js";
import { sortedJaccard, sortedSet } from "./jaccard.js";
import { scanChunk, type ChunkTask, type ShardBase } from "./shard-scan.js";

/**
 * The shingle set of a document: distinct hashes of its k-word shingles, sorted. A document
 * with fewer than k kept words is one shingle of all of them (so identical short documents
 * still pair); one without kept words has the empty set.
 */
export function shingleSet(tokens: readonly string[], k: number, opts: NormalizeOptions): Float64Array {
  return shingleSetOfHashes(tokenHashes(tokens, opts), k);
}

/** `shingleSet` of a document's kept token hashes. */
export function shingleSetOfHashes(hashes: number[], k: number): Float64Array {
  if (hashes.length === 0) return new Float64Array(0);
  return sortedSet(hashes.length >= k ? shingles(hashes, k) : [hashSequence(hashes, 0, hashes.length)]);
}

/**
 * numPerm seeded permutations of 32-bit values, x ↦ a·x + b mod 2^32 with odd a (a
 * bijection; shingle hashes are already uniform, so the minimum is a fair sample).
 */
export class Permutations {
  readonly a: Int32Array;
  readonly b: Int32Array;

  constructor(readonly count: number, seed: number) {
    this.a = new Int32Array(count);
    this.b = new Int32Array(count);
    for (let i = 0; i < count; i++) {
      this.a[i] = mix53to32(2 * i, seed) | 1;
      this.b[i] = mix53to32(2 * i + 1, seed);
    }
  }
}

/**
 * MinHash signature of a shingle set (53-bit hashes, their low 32 bits permuted) into
 * `out`. Minima are taken in signed 32-bit order — as fair an order as any for a bijection,
 * and it keeps the loop in int32 arithmetic.
 */
export function minhashSignature(set: Float64Array, perms: Permutations, out: Int32Array): void {
  const { a, b, count } = perms;
  const n = set.length;
  const xs = lowBits.length >= n ? lowBits : (lowBits = new Int32Array(n * 2));
  for (let s = 0; s < n; s++) xs[s] = set[s] | 0;
  // Permutation by permutation, so the running minimum stays in a register.
  for (let i = 0; i < count; i++) {
    const ai = a[i];
    const bi = b[i];
    let min = 0x7fffffff;
    for (let s = 0; s < n; s++) {
      const v = (Math.imul(ai, xs[s]) + bi) | 0;
      if (v < min) min = v;
    }
    out[i] = min;
  }
}

/** Scratch for the low 32 bits of a set's hashes. */
let lowBits = new Int32Array(1024);

/** One 32-bit key per band of `rows` consecutive minhashes: equal bands give equal keys. */
export function bandKeys(signature: Int32Array, bands: number, rows: number, out: Uint32Array, at: number): void {
  for (let band = 0; band < bands; band++) {
    let h = band;
    for (let r = band * rows; r < (band + 1) * rows; r++) h = mix53to32(signature[r] >>> 0, h);
    out[at + band] = h;
  }
}

/** The shingle sets of a shard, flat: document i's set follows those of documents < i. */
export interface ShardSets {
  lengths: Uint32Array;
  values: Float64Array;
}

export function setsFile(workdir: string, shard: number): string {
  return join(workdir, "methods", `${shardName(shard)}.sets.zst`);
}

export interface MinhashShard extends ShardBase {
  /** `bands` keys per document (zeros for an empty set). */
  keys: Uint32Array;
  empty: Uint8Array;
}

/**
 * Chunk task: shingle sets (written to the shard's sets file, so they are not held in
 * memory) and LSH band keys of the chunk's documents.
 */
export async function minhashShard(task: ChunkTask): Promise<MinhashShard> {
  const o = task.options;
  const perms = new Permutations(o.numPerm, o.seed);
  const signature = new Int32Array(o.numPerm);
  const n = task.chunk.docCount;
  const keys = new Uint32Array(n * o.bands);
  const empty = new Uint8Array(n);
  const lengths = new Uint32Array(n);
  const sets: Float64Array[] = [];
  let i = 0;
  const base = scanChunk(task.chunk, o, tokenHash(o), (doc) => {
    const set = shingleSetOfHashes(keptHashes(doc.tokens), o.shingleSize);
    sets.push(set);
    lengths[i] = set.length;
    if (set.length === 0) empty[i] = 1;
    else {
      minhashSignature(set, perms, signature);
      bandKeys(signature, o.bands, o.rows, keys, i * o.bands);
    }
    i++;
  });
  const values = new Float64Array(sets.reduce((s, x) => s + x.length, 0));
  let at = 0;
  for (const s of sets) {
    values.set(s, at);
    at += s.length;
  }
  await writeAtomic(setsFile(task.workdir, task.chunk.index), encodeRecords([{ lengths, values } satisfies ShardSets], 1));
  return { ...base, keys, empty };
}

/** A shard's sets with the start of each document's set. */
class LoadedSets {
  readonly starts: Float64Array;

  constructor(readonly values: Float64Array, lengths: Uint32Array, readonly firstDoc: number) {
    this.starts = new Float64Array(lengths.length + 1);
    for (let i = 0; i < lengths.length; i++) this.starts[i + 1] = this.starts[i] + lengths[i];
  }
}

/** The few shards' sets a worker needs at a time (verify tasks come grouped by shard pair). */
const loaded = new Map<string, LoadedSets>();
const LOADED_LIMIT = 6;

function loadSets(workdir: string, shard: number, firstDoc: number): LoadedSets {
  const path = setsFile(workdir, shard);
  let sets = loaded.get(path);
  if (sets === undefined) {
    if (loaded.size >= LOADED_LIMIT) loaded.delete(loaded.keys().next().value as string);
    const [r] = readRunFileSync<ShardSets>(path);
    sets = new LoadedSets(r.values, r.lengths, firstDoc);
    loaded.set(path, sets);
  }
  return sets;
}

export interface VerifyTask {
  workdir: string;
  /** Shard index and first document of the shards holding doc_a and doc_b. */
  shardA: number;
  firstA: number;
  shardB: number;
  firstB: number;
  /** Candidate pairs, flat: doc_a, doc_b, … (corpus ordinals). */
  pairs: Uint32Array;
}

/** Verify task: the exact Jaccard of every candidate pair. */
export function verifyPairs(task: VerifyTask): Float64Array {
  const A = loadSets(task.workdir, task.shardA, task.firstA);
  const B = loadSets(task.workdir, task.shardB, task.firstB);
  const out = new Float64Array(task.pairs.length / 2);
  for (let k = 0; k < out.length; k++) {
    const a = task.pairs[2 * k] - A.firstDoc;
    const b = task.pairs[2 * k + 1] - B.firstDoc;
    out[k] = sortedJaccard(A.values, A.starts[a], A.starts[a + 1], B.values, B.starts[b], B.starts[b + 1]);
  }
  return out;
}
