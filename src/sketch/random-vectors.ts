/**
 * Random hyperplane normals for Charikar's signatures, derived rather than stored.
 *
 * The thesis draws k random vectors RND_1..RND_k over the vocabulary with N(0,1) components.
 * Here the component of RND_j for term t is a pure function g(seed, t, j): the k components
 * of one term (the "term vector" [g(seed,t,0) … g(seed,t,k−1)]) come from one seeded stream,
 * so a document vector v = Σ_t w_t·e_t has projections v·RND_j = Σ_t w_t·g(seed,t,j), and the
 * signature only needs the term vectors of the document's own terms. Every thread and machine
 * derives the same vectors; the vocabulary × k matrix never exists (docs/ARCHITECTURE.md).
 *
 * The thesis also normalises each RND_j; that multiplies v·RND_j by a positive constant and
 * leaves every sign — hence every bit — unchanged, so it is not done here.
 *
 * Generator: sfc32 (Chris Doty-Humphrey's Small Fast Chaotic PRNG, 128-bit state with a
 * counter, passes PractRand/BigCrush) seeded by MurmurHash3-style mixes of (seed, term).
 * Gaussians: Marsaglia's polar method, which is exact (rejection, no approximation of the
 * inverse CDF) and yields a pair per accepted point without sin/cos.
 * Determinism: integer steps are exact; Math.sqrt is correctly rounded by IEEE 754 and V8's
 * Math.log is a fixed software port of fdlibm, so results agree across V8 builds and
 * platforms. Components are stored as float32, so a cached copy equals a fresh one.
 *
 * Projections (--projection): `float32` stores each N(0,1) value rounded to float32 (the
 * thesis's method); `int8` (the default) stores q = round(127·z/4) clipped to [−127, 127] of a
 * N(0,1) value z — a quarter of the memory and memory traffic, measured indistinguishable from
 * float32 on real corpora (issue 14); ±1 components would be measurably worse. An int8
 * component is drawn directly from the distribution of q (int8-draw.ts: one generator step and
 * a table lookup instead of the polar method's logarithms and rejections, ≈ 10× cheaper), so
 * the int8 vectors differ from vertdup 0.3.0's (quantised polar Gaussians): INT8_FORMAT marks
 * them in work directories and indices, which refuse the older ones.
 */

import { mix53to32 } from "../features/hash.js";
import type { Projection } from "../core/options.js";
import { drawInt8, WARMUP } from "./int8-draw.js";
import { NumberMap } from "../util/number-map.js";
import { SignMemory, type SignMemoryParts, type TermVector } from "./sign-memory.js";

/** 2^-31: maps a signed 32-bit integer to a uniform in [−1, 1). */
const INV_2_31 = 1 / 0x8000_0000;
/** Salts that separate the stream seeds of termVector, BitPermutation, … from each other. */
const SEED_SALT = 0x5eed_1e55;
const LANE_SALTS = [0x243f6a88, 0x85a308d3, 0x13198a2e] as const;

/**
 * sfc32, the generator termVector inlines, as an object for streams that are not hot
 * (e.g. the transpositions of a BitPermutation). Seeded from two integers in [0, 2^53);
 * `new Sfc32(seed, term)` is exactly the uniform stream termVector(seed, term, …) consumes (for
 * int8 vectors, its first 12 outputs seed four lanes).
 */
export class Sfc32 {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  constructor(seed: number, stream: number) {
    const salt = mix53to32(seed, SEED_SALT);
    this.a = mix53to32(stream, salt ^ LANE_SALTS[0]);
    this.b = mix53to32(stream, salt ^ LANE_SALTS[1]);
    this.c = mix53to32(stream, salt ^ LANE_SALTS[2]);
    for (let i = 0; i < WARMUP; i++) this.nextUint32();
  }

  /** Next output, an unsigned 32-bit integer. */
  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /**
   * Integer in [0, n) for 1 ≤ n ≤ 2^16 by multiply-high: floor(x·n / 2^32). The bias is at most
   * n/2^32 (< 2^-16 relative), irrelevant for choosing bit positions.
   */
  nextBelow(n: number): number {
    return Math.floor((this.nextUint32() * n) / 0x1_0000_0000);
  }
}

/**
 * The format of int8 term vectors recorded in work directories and indices: 2 = drawn directly
 * from the quantised Gaussian (int8-draw.ts). Absent = 0.3.0's quantised polar Gaussians, which
 * differ component by component: signatures of the two never mix. float32 has one format.
 */
export const INT8_FORMAT = 2;

/** The recorded vector format of a projection: INT8_FORMAT for int8, undefined (none) for float32. */
export function projectionFormat(projection: Projection): number | undefined {
  return projection === "int8" ? INT8_FORMAT : undefined;
}

/**
 * Fills `out` with the components j = 0 … out.length−1 of the random hyperplane normals for
 * `term`, a pure function of (seed, term, j) from the stream of Sfc32(seed, term):
 * - float32 (a Float32Array): independent N(0,1) values rounded to float32, by the polar
 *   method: draw (u, v) uniform in [−1,1)², reject unless 0 < s = u²+v² < 1; then
 *   u·√(−2 ln s / s) and v·√(−2 ln s / s) are two independent standard normals. Acceptance
 *   is π/4, so a 1024-bit vector costs 512 log/sqrt pairs and ≈ 1304 generator steps.
 * - int8 (an Int8Array): independent draws of round(127·z/4) clipped to ±127, z ~ N(0,1),
 *   from its exact distribution (int8-draw.ts): one generator step and a table lookup each.
 *
 * @param seed  the signature seed (thesis `rnd_seed`), an integer in [0, 2^53)
 * @param term  a term hash, an integer in [0, 2^53)
 * @param out   receives out.length components (the signature length in bits)
 */
export function termVector(seed: number, term: number, out: TermVector): void {
  // Separate functions keep each store monomorphic (one mixed loop made int8 vectors 1.7× slower).
  if (out instanceof Int8Array) int8Vector(seed, term, out);
  else out.set(gaussians(seed, term, out.length).subarray(0, out.length));
}

/** Scratch of the lanes' seeds of an int8 vector. */
const lanes = new Int32Array(12);

/**
 * The int8 components of (seed, term): drawInt8 (int8-draw.ts) from four sfc32 lanes seeded
 * with the first 12 outputs of Sfc32(seed, term) (lane L: a, b, c = outputs L, 4 + L, 8 + L).
 */
function int8Vector(seed: number, term: number, out: Int8Array): void {
  const salt = mix53to32(seed, SEED_SALT);
  // sfc32 state inlined in locals, as in gaussians.
  let a = mix53to32(term, salt ^ LANE_SALTS[0]) | 0;
  let b = mix53to32(term, salt ^ LANE_SALTS[1]) | 0;
  let c = mix53to32(term, salt ^ LANE_SALTS[2]) | 0;
  let d = 1;
  let t = 0;
  for (let i = 0; i < WARMUP + 12; i++) {
    t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (((c << 21) | (c >>> 11)) + t) | 0;
    if (i >= WARMUP) lanes[i - WARMUP] = t;
  }
  drawInt8(lanes, out);
}

/** Scratch of the float64 values of termVector, grown as needed. */
let scratch = new Float64Array(1024);

/** The first n N(0,1) values of the stream of (seed, term), in float64, in a reused scratch array. */
function gaussians(seed: number, term: number, n: number): Float64Array {
  if (scratch.length < n) scratch = new Float64Array(n);
  const out = scratch;
  const salt = mix53to32(seed, SEED_SALT);
  // sfc32 state inlined in locals: the hot loop then runs without property loads/stores.
  let a = mix53to32(term, salt ^ LANE_SALTS[0]) | 0;
  let b = mix53to32(term, salt ^ LANE_SALTS[1]) | 0;
  let c = mix53to32(term, salt ^ LANE_SALTS[2]) | 0;
  let d = 1;
  let t = 0;
  for (let i = 0; i < WARMUP; i++) {
    t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (((c << 21) | (c >>> 11)) + t) | 0;
  }
  let j = 0;
  while (j < n) {
    let u: number;
    let v: number;
    let s: number;
    do {
      t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (((c << 21) | (c >>> 11)) + t) | 0;
      u = t * INV_2_31;
      t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (((c << 21) | (c >>> 11)) + t) | 0;
      v = t * INV_2_31;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const f = Math.sqrt((-2 * Math.log(s)) / s);
    out[j++] = u * f;
    // An odd length drops the pair's second value; signatures (multiples of 64) never do.
    if (j < n) out[j++] = v * f;
  }
  return out;
}

/** The shared buffers of a VectorCache: post them to a worker and call VectorCache.fromShared. */
export interface VectorCacheParts {
  seed: number;
  bits: number;
  /** Number of slots (distinct cached terms). */
  count: number;
  /** Float64[count]: the term of each slot. */
  terms: SharedArrayBuffer;
  /** The vectors (slot s at SignMemory.vectorOffset(s), of its projection) and the sign pass's scratch regions. */
  memory: SignMemoryParts;
  /** Uint8[count]: 1 once slot s has been filled (written with Atomics after the vector). */
  filled: SharedArrayBuffer;
  /** The term → slot NumberMap's buffers: Float64 keys and Float64 values (the slots). */
  keys: SharedArrayBuffer;
  slots: SharedArrayBuffer;
}

/**
 * Precomputed term vectors of up to K chosen terms (typically the most frequent), in shared
 * memory so that all workers of a pool read one copy (K·bits bytes for int8, K·bits·4 for
 * float32: 100,000 terms at 1024 bits = 102 MB or 410 MB), and the accumulation kernel reads
 * them in place (sign-memory.ts).
 *
 * Workers may fill disjoint slot ranges in parallel (`fill`); `slotOf` returns −1 for a slot
 * not filled yet, so a caller falls back to termVector and gets the same values either way.
 * The term → slot lookup is a NumberMap over shared buffers too, so `fromShared` in another
 * thread only wraps the buffers.
 */
export class VectorCache {
  readonly seed: number;
  readonly bits: number;
  /** Number of slots (distinct cached terms). */
  readonly size: number;
  /** The memory holding the vectors, shared with the accumulation kernel. */
  readonly memory: SignMemory;
  private readonly terms: Float64Array;
  private readonly filled: Uint8Array;
  private readonly slots: NumberMap;
  private readonly parts: VectorCacheParts;

  private constructor(parts: VectorCacheParts) {
    this.parts = parts;
    this.seed = parts.seed;
    this.bits = parts.bits;
    this.size = parts.count;
    this.terms = new Float64Array(parts.terms);
    this.memory = SignMemory.fromShared(parts.memory);
    this.filled = new Uint8Array(parts.filled);
    this.slots = NumberMap.fromShared({ keys: new Float64Array(parts.keys), values: new Float64Array(parts.slots), count: parts.count });
    if (this.terms.length !== this.size || this.memory.count !== this.size || this.memory.bits !== this.bits) {
      throw new RangeError("VectorCache: buffer sizes do not match count and bits");
    }
  }

  /**
   * A cache of `projection` vectors for the distinct values of `terms` (duplicates get one
   * slot, in first-occurrence order), with `regions` scratch regions for concurrent sign
   * tasks. Vectors are not computed yet: call `fill` (here or in workers).
   */
  static build(projection: Projection, seed: number, bits: number, terms: ArrayLike<number>, regions = 1): VectorCache {
    if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`invalid seed ${seed}`);
    if (!Number.isInteger(bits) || bits <= 0) throw new RangeError(`invalid bits ${bits}`);
    const slots = new NumberMap(terms.length, true);
    const order: number[] = [];
    for (let i = 0; i < terms.length; i++) {
      const term = terms[i];
      if (!Number.isSafeInteger(term) || term < 0) throw new RangeError(`invalid term ${term}`);
      if (slots.get(term) === undefined) {
        slots.set(term, order.length);
        order.push(term);
      }
    }
    const count = order.length;
    const table = slots.toShared();
    const termBuf = new SharedArrayBuffer(count * 8);
    new Float64Array(termBuf).set(order);
    return new VectorCache({
      seed,
      bits,
      count,
      terms: termBuf,
      memory: SignMemory.create(projection, bits, count, regions).toShared(),
      filled: new SharedArrayBuffer(count),
      keys: table.keys.buffer as SharedArrayBuffer,
      slots: table.values.buffer as SharedArrayBuffer,
    });
  }

  /** Wraps buffers received from another thread (no copy). */
  static fromShared(parts: VectorCacheParts): VectorCache {
    return new VectorCache(parts);
  }

  /** The shared buffers, to post to workers (structured clone shares, never copies, them). */
  toShared(): VectorCacheParts {
    return { ...this.parts };
  }

  /** Computes the vectors of slots [from, to); already filled slots are skipped. */
  fill(from = 0, to = this.size): void {
    if (from < 0 || to > this.size || from > to) {
      throw new RangeError(`slot range [${from}, ${to}) outside [0, ${this.size})`);
    }
    const bits = this.bits;
    const vectors = this.memory.vectors;
    for (let s = from; s < to; s++) {
      if (Atomics.load(this.filled, s) === 1) continue;
      termVector(this.seed, this.terms[s], vectors.subarray(s * bits, (s + 1) * bits));
      // Publish after the data: a reader that sees 1 (Atomics.load) also sees the vector.
      Atomics.store(this.filled, s, 1);
    }
  }

  /** Whether `slot` (an integer ≥ 0) is a slot of the cache whose vector has been filled. */
  isFilled(slot: number): boolean {
    return slot < this.size && Atomics.load(this.filled, slot) === 1;
  }

  /** Slot of `term` if it is cached and filled, else −1. */
  slotOf(term: number): number {
    const s = this.slots.get(term) ?? -1;
    return s >= 0 && this.isFilled(s) ? s : -1;
  }

  /** A view of the vector of `term`, or null if the term is not cached or not filled yet. */
  get(term: number): TermVector | null {
    const s = this.slotOf(term);
    return s < 0 ? null : this.memory.vectors.subarray(s * this.bits, (s + 1) * this.bits);
  }
}
