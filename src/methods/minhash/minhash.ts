import type { NormalizeOptions } from "../../core/options.js";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { mix53to32, windowHashes } from "../../features/hash.js";
import { DROPPED, tokenHash, tokenHashes } from "../../features/terms.js";

import { shardName } from "../../workdir/layout.js";
import { writeAtomicSync } from "../../util/atomic.js";
import { setDigest, sortedSet, sortUnique } from "../sets/jaccard.js";
import { growableF64, type GrowableArray } from "../../util/typed-arrays.js";
import { MinhashWasm } from "./minhash-wasm.js";
import { scanShard, type ChunkTask, type ShardBase } from "../sets/shard-scan.js";

/**
 * The shingle set of a document: distinct hashes (features/hash.ts windowHashes) of its k-word shingles, sorted. A document
 * with fewer than k kept words is one shingle of all of them (so identical short documents
 * still pair); one without kept words has the empty set.
 */
export function shingleSet(tokens: readonly string[], k: number, opts: NormalizeOptions): Float64Array {
  return shingleSetOfHashes(tokenHashes(tokens, opts), k);
}

/** `shingleSet` of a document's kept token hashes. */
export function shingleSetOfHashes(hashes: number[], k: number): Float64Array {
  const out = new Float64Array(Math.max(1, hashes.length - k + 1));
  return sortedSet(out.subarray(0, windowHashes(hashes, hashes.length, k, out, 0)));
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
 * MinHash signature of a set given as the low 32 bits of its 53-bit hashes (repeats are
 * harmless: a minimum does not see them), permuted, into `out`. Minima are taken in signed
 * 32-bit order — as fair an order as any for a bijection, and it keeps the loop in int32
 * arithmetic. The reference for MinhashWasm, which gives the same integers.
 */
export function minhashSignature(lowBits: Int32Array, n: number, perms: Permutations, out: Int32Array): void {
  const { a, b, count } = perms;
  // Permutation by permutation, so the running minimum stays in a register.
  for (let i = 0; i < count; i++) {
    const ai = a[i];
    const bi = b[i];
    let min = 0x7fffffff;
    for (let s = 0; s < n; s++) {
      const v = (Math.imul(ai, lowBits[s]) + bi) | 0;
      if (v < min) min = v;
    }
    out[i] = min;
  }
}

/** The low 32 bits of each of `values` (53-bit hashes), as Int32 (ToInt32 is mod 2^32). */
export function lowBitsOf(values: ArrayLike<number>, from: number, n: number, out: Int32Array): void {
  for (let s = 0; s < n; s++) out[s] = values[from + s] | 0;
}

/** One 32-bit key per band of `rows` consecutive minhashes: equal bands give equal keys. */
export function bandKeys(signature: Int32Array, bands: number, rows: number, out: Uint32Array, at: number): void {
  for (let band = 0; band < bands; band++) {
    let h = band;
    for (let r = band * rows; r < (band + 1) * rows; r++) h = mix53to32(signature[r] >>> 0, h);
    out[at + band] = h;
  }
}

/**
 * The shingle hashes of a shard, flat: document i's follow those of documents < i, in text
 * order with repeats (sorting waits until a document is a candidate: most never are).
 */
export interface ShardSets {
  lengths: Uint32Array;
  values: Float64Array;
}

export function setsFile(workdir: string, shard: number): string {
  return join(workdir, "methods", `${shardName(shard)}.sets`);
}

/**
 * A sets file, raw: the number of documents and their lengths (uint32), zero padding to a
 * multiple of 8 bytes, the values (float64). Not compressed: hashes do not compress, and
 * the file is written and read once. In two parts, so the values are written from where they are.
 */
function encodeSets(sets: ShardSets): Uint8Array[] {
  const head = new Uint8Array(8 * Math.ceil((4 * (1 + sets.lengths.length)) / 8));
  const words = new Uint32Array(head.buffer, 0, 1 + sets.lengths.length);
  words[0] = sets.lengths.length;
  words.set(sets.lengths, 1);
  return [head, new Uint8Array(sets.values.buffer, sets.values.byteOffset, sets.values.byteLength)];
}

export function readSets(path: string): ShardSets {
  const file = readFileSync(path);
  // Typed-array views need aligned offsets; a small file may sit unaligned in Node's pool.
  const bytes = file.byteOffset % 8 === 0 ? file : Uint8Array.from(file);
  const count = new Uint32Array(bytes.buffer, bytes.byteOffset, 1)[0];
  const head = 8 * Math.ceil((4 * (1 + count)) / 8);
  return {
    lengths: new Uint32Array(bytes.buffer, bytes.byteOffset + 4, count),
    values: new Float64Array(bytes.buffer, bytes.byteOffset + head, (bytes.byteLength - head) / 8),
  };
}

export interface MinhashShard extends ShardBase {
  /** Its sets file (in the run's work directory, or in an index for an index's shard). */
  sets: string;
  /** `bands` keys per document (zeros for an empty set). */
  keys: Uint32Array;
  /** `setDigest` of each document's shingle set, two words per document: its identity key. */
  digests: Uint32Array;
  empty: Uint8Array;
}

/**
 * Writes a document's shingle hashes (as `shingleSetOfHashes`, before sorting) at `out.length`
 * and returns their number; `kept` holds its `m` kept token hashes.
 */
function appendShingles(kept: Float64Array, m: number, k: number, out: GrowableArray<Float64Array>): number {
  const n = windowHashes(kept, m, k, out.reserve(Math.max(1, m - k + 1)), out.length);
  out.length += n;
  return n;
}

/** Signatures with the WebAssembly kernel where there is one, else with the reference loop. */
class Signer {
  private readonly kernel: MinhashWasm | null;
  private scratch = new Int32Array(1024);
  readonly signature: Int32Array;

  constructor(private readonly perms: Permutations) {
    this.kernel = MinhashWasm.create(perms);
    this.signature = new Int32Array(perms.count);
  }

  sign(values: Float64Array, from: number, n: number): Int32Array {
    if (this.kernel !== null) {
      lowBitsOf(values, from, n, this.kernel.reserve(n));
      this.kernel.sign(n);
      return this.kernel.signature;
    }
    if (this.scratch.length < n) this.scratch = new Int32Array(2 * n);
    lowBitsOf(values, from, n, this.scratch);
    minhashSignature(this.scratch, n, this.perms, this.signature);
    return this.signature;
  }
}

/** A worker runs one task at a time: the chunks' shingle hashes take turns in one growing array instead of leaving one behind each. */
const shingles = growableF64();

/**
 * Chunk task: shingle hashes (written to the shard's sets file, so they are not held in
 * memory) and LSH band keys of the chunk's documents.
 */
export function minhashShard(task: ChunkTask): MinhashShard {
  const o = task.options;
  const signer = new Signer(new Permutations(o.numPerm, o.seed));
  const n = task.chunk.docCount;
  const keys = new Uint32Array(n * o.bands);
  const digests = new Uint32Array(2 * n);
  const empty = new Uint8Array(n);
  const lengths = new Uint32Array(n);
  const values = shingles;
  values.length = 0;
  let kept = new Float64Array(1024);
  let set = new Float64Array(1024);
  let i = 0;
  const base = scanShard(task.chunk, o, tokenHash(o), (doc) => {
    if (kept.length < doc.tokens.length) kept = new Float64Array(2 * doc.tokens.length);
    let m = 0;
    for (const h of doc.tokens) if (h !== DROPPED) kept[m++] = h;
    const from = values.length;
    const count = appendShingles(kept, m, o.shingleSize, values);
    lengths[i] = count;
    if (count === 0) empty[i] = 1;
    else {
      bandKeys(signer.sign(values.values, from, count), o.bands, o.rows, keys, i * o.bands);
      if (set.length < count) set = new Float64Array(2 * count);
      set.set(values.values.subarray(from, from + count));
      setDigest(set, 0, sortUnique(set.subarray(0, count)), digests, 2 * i);
    }
    i++;
  });
  const sets = setsFile(task.workdir, task.chunk.index);
  // Durable: the features marker vouches for it (the extract files made from it are scratch).
  writeAtomicSync(sets, encodeSets({ lengths, values: values.view() }));
  return { ...base, sets, keys, digests, empty };
}
