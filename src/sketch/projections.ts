import { accumulateKernels, type AccumulateKernel, type AccumulateKernels } from "./accumulate-wasm.js";
import { BLOCK_BYTES, type Region, type SignMemory, type TermVector } from "./sign-memory.js";
import { accumulate, accumulateInt32, signBits } from "./signature.js";

/** The weights acc8d4 takes: int16. */
const INT16_MIN = -0x8000;
const INT16_MAX = 0x7fff;
/** The end of a block's room (int32 index). */
const BLOCK_END = BLOCK_BYTES / 4;

/** Whether a block (Projections.queue) takes a term of cache slot `slot` (−1: uncached) and weight `weight`: cached, int16. */
export function blockTakes(slot: number, weight: number): boolean {
  return slot >= 0 && weight >= INT16_MIN && weight <= INT16_MAX;
}

/**
 * The projections v·RND_j of one document, summed term by term in a leased scratch region of
 * the sign memory: by the WebAssembly kernels, reading cached vectors in place, where the
 * runtime has them, else by signature.ts `accumulate` / `accumulateInt32`. Both give the same
 * bits. Sums are float64, or int32 for int8 vectors and integer weights (`reset(true)`).
 * Cached int8 vectors wait to be added four at a time: into float64 sums by `acc8x4` (the
 * same operations in the same order as one by one; an uncached term, or reading the sums,
 * first adds those waiting), into int32 sums by `acc8d4` when their weights fit in int16
 * (integer sums do not depend on the order: other terms are added at once by `acc8i`).
 *
 * Documents with int32 sums can also be queued in a block (`queue`) and summed and signed
 * together by `acc8block` (`signQueued`): one call into WebAssembly per block, where a call per
 * four terms and a signing loop per document in JavaScript took about a fifth of the sign pass.
 */
export class Projections {
  /** termVector writes an uncached term's vector here; then call addStaged. */
  readonly staging: TermVector;
  private int32 = false;
  /** Byte offsets and weights of the cached vectors waiting for acc8x4 or acc8d4 (at most 3 between calls). */
  private readonly waiting = new Int32Array(4);
  private readonly waitingWeights = new Float64Array(4);
  private waitingCount = 0;
  /** The block: documents queued, the next free int32 from its start (lists) and its end (sums, signatures). */
  private queued = 0;
  private low = 0;
  private high = BLOCK_END;
  /** Per queued document: its tag and the int32 index of its signature in the block. */
  private readonly tags: number[] = [];
  private readonly signatures: number[] = [];

  private constructor(
    private readonly memory: SignMemory,
    private readonly region: Region,
    private readonly kernels: AccumulateKernels | null,
  ) {
    this.staging = region.staging;
  }

  /** Projections in a free region of `memory`; release() when done. */
  static lease(memory: SignMemory): Projections {
    const region = memory.lease();
    if (region === null) throw new Error(`all ${memory.regions} scratch regions of the sign memory are in use`);
    return new Projections(memory, region, accumulateKernels(memory));
  }

  /**
   * Zero sums for the next document; `integerWeights` when its weights are integers whose sum
   * of magnitudes is at most INT32_WEIGHT_LIMIT: int8 projections are then summed exactly in int32.
   */
  reset(integerWeights: boolean): void {
    this.int32 = integerWeights && this.memory.projection === "int8";
    this.waitingCount = 0;
    this.region.acc.fill(0);
  }

  /** acc[j] += weight · (the cached vector of `slot`)[j]. */
  addSlot(slot: number, weight: number): void {
    const bits = this.memory.bits;
    if (this.kernels === null) this.accumulate(this.memory.vectors.subarray(slot * bits, (slot + 1) * bits), weight);
    else if (this.memory.projection !== "int8" || (this.int32 && (weight < INT16_MIN || weight > INT16_MAX))) this.kernel()(this.region.accOffset, this.memory.vectorOffset(slot), bits, weight);
    else {
      const n = this.waitingCount;
      if (n < 3) {
        this.waiting[n] = this.memory.vectorOffset(slot);
        this.waitingWeights[n] = weight;
        this.waitingCount = n + 1;
        return;
      }
      const v = this.waiting;
      const w = this.waitingWeights;
      if (this.int32) this.kernels.acc8d4(this.region.accOffset, v[0], v[1], v[2], this.memory.vectorOffset(slot), bits, pair(w[0], w[1]), pair(w[2], weight));
      else this.kernels.acc8x4(this.region.accOffset, v[0], v[1], v[2], this.memory.vectorOffset(slot), bits, w[0], w[1], w[2], weight);
      this.waitingCount = 0;
    }
  }

  /**
   * Adds the vectors waiting: for float64 sums one by one (acc8); for int32 sums two or three
   * by acc8d4 with weight 0 for the missing ones (any vector: it adds nothing), one by acc8i.
   */
  private addWaiting(): void {
    const kernels = this.kernels as AccumulateKernels;
    const n = this.waitingCount;
    const v = this.waiting;
    const w = this.waitingWeights;
    const bits = this.memory.bits;
    if (!this.int32) for (let k = 0; k < n; k++) kernels.acc8(this.region.accOffset, v[k], bits, w[k]);
    else if (n === 1) kernels.acc8i(this.region.accOffset, v[0], bits, w[0]);
    else if (n > 1) kernels.acc8d4(this.region.accOffset, v[0], v[1], n > 2 ? v[2] : v[0], v[0], bits, pair(w[0], w[1]), pair(n > 2 ? w[2] : 0, 0));
    this.waitingCount = 0;
  }

  /** acc[j] += weight · staging[j]. */
  addStaged(weight: number): void {
    if (this.kernels === null) this.accumulate(this.staging, weight);
    else {
      if (!this.int32) this.addWaiting();
      this.kernel()(this.region.accOffset, this.region.stagingOffset, this.memory.bits, weight);
    }
  }

  private kernel(): AccumulateKernel {
    const kernels = this.kernels as AccumulateKernels;
    return this.int32 ? kernels.acc8i : this.memory.projection === "int8" ? kernels.acc8 : kernels.acc;
  }

  private accumulate(vector: TermVector, weight: number): void {
    if (this.int32) accumulateInt32(this.region.acc32, vector as Int8Array, weight);
    else accumulate(this.region.acc, vector, weight);
  }

  /** The sums of the current document: int32 after reset(true) with int8 vectors, else float64. */
  sums(): Float64Array | Int32Array {
    if (this.kernels !== null) this.addWaiting();
    return this.int32 ? this.region.acc32 : this.region.acc;
  }

  /** Whether documents can be queued in a block: int8 vectors and the WebAssembly kernels. */
  get blocks(): boolean {
    return this.kernels !== null && this.memory.projection === "int8";
  }

  /**
   * Queues a document, tagged `tag`, for signing in the block (signQueued): of its terms k <
   * length, the `count` with a cache slot (slots[k] ≥ 0) and an int16 weight, plus, when
   * `withSums`, the int32 sums of its other terms, added since reset(true). False when the block
   * has no room: sign it, then queue again (false for an empty block: the document is too large
   * for one; add its terms one by one).
   */
  queue(tag: number, slots: Int32Array, weights: Float64Array, length: number, count: number, withSums: boolean): boolean {
    const bits = this.memory.bits;
    const groups = Math.ceil(count / 8);
    const low = this.low + 3 + 16 * groups;
    const high = this.high - bits / 32 - (withSums ? bits : 0);
    if (low > high) return false;
    const block = this.region.block;
    const at = (index: number) => this.region.blockOffset + 4 * index;
    this.high = high;
    block[this.low] = groups;
    block[this.low + 1] = withSums ? at(high + bits / 32) : 0;
    block[this.low + 2] = at(high);
    if (withSums) {
      const sums = this.sums();
      if (!(sums instanceof Int32Array)) throw new Error("Projections.queue: the document's sums are not int32 (reset(true))");
      block.set(sums, high + bits / 32);
    }
    const vectorBase = this.memory.vectorOffset(0);
    const vectorBytes = this.memory.vectorOffset(1) - vectorBase;
    let e = this.low + 3;
    const end = e + 16 * groups;
    for (let k = 0; k < length; k++) {
      const slot = slots[k];
      const weight = weights[k];
      if (!blockTakes(slot, weight)) continue;
      if (e === end) throw new RangeError(`Projections.queue: more than ${count} cached terms with int16 weights`);
      block[e] = vectorBase + slot * vectorBytes;
      block[e + 1] = weight;
      e += 2;
    }
    // Whole groups: weight 0 on a vector of the cache adds nothing.
    for (; e < end; e += 2) {
      block[e] = vectorBase;
      block[e + 1] = 0;
    }
    this.low = low;
    this.tags.push(tag);
    this.signatures.push(high);
    this.queued++;
    return true;
  }

  /** Sums and signs the queued documents (acc8block): `signed(tag, its bits/32 words)` for each, in queue order. */
  signQueued(signed: (tag: number, words: Uint32Array) => void): void {
    if (this.queued === 0) return;
    const bits = this.memory.bits;
    // The staging vector's room (4·bits bytes) as scratch: it is only used within addStaged, and the current sums stay.
    (this.kernels as AccumulateKernels).acc8block(this.region.blockOffset, this.queued, bits, this.region.stagingOffset);
    const block = this.region.block;
    for (let k = 0; k < this.queued; k++) signed(this.tags[k], new Uint32Array(block.buffer, block.byteOffset + 4 * this.signatures[k], bits / 32).slice());
    this.queued = 0;
    this.low = 0;
    this.high = BLOCK_END;
    this.tags.length = 0;
    this.signatures.length = 0;
  }

  /** The signature of the sums: bits/32 words at out[offset …] (signature.ts signBits). */
  signBits(out: Uint32Array, offset: number): void {
    signBits(this.sums(), out, offset);
  }

  release(): void {
    this.region.release();
  }
}

/** Two int16 weights as acc8d4's i32 argument: the first in the low half. */
function pair(w0: number, w1: number): number {
  return (w0 & 0xffff) | (w1 << 16);
}
