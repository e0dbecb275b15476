import { accumulateKernel, type AccumulateKernel } from "./accumulate-wasm.js";
import type { Region, SignMemory } from "./sign-memory.js";
import { accumulate } from "./signature.js";

/**
 * The projections v·RND_j of one document, summed term by term in a leased scratch region of
 * the sign memory: by the WebAssembly kernel, reading cached vectors in place, where the
 * runtime has it, else by signature.ts `accumulate`. Both give the same bits.
 */
export class Projections {
  readonly acc: Float64Array;
  /** termVector writes an uncached term's vector here; then call addStaged. */
  readonly staging: Float32Array;

  private constructor(
    private readonly memory: SignMemory,
    private readonly region: Region,
    private readonly kernel: AccumulateKernel | null,
  ) {
    this.acc = region.acc;
    this.staging = region.staging;
  }

  /** Projections in a free region of `memory`; release() when done. */
  static lease(memory: SignMemory): Projections {
    const region = memory.lease();
    if (region === null) throw new Error(`all ${memory.regions} scratch regions of the sign memory are in use`);
    return new Projections(memory, region, accumulateKernel(memory));
  }

  reset(): void {
    this.acc.fill(0);
  }

  /** acc[j] += weight · (the cached vector of `slot`)[j]. */
  addSlot(slot: number, weight: number): void {
    const bits = this.memory.bits;
    if (this.kernel !== null) this.kernel(this.region.accOffset, this.memory.vectorOffset(slot), bits, weight);
    else accumulate(this.acc, this.memory.vectors.subarray(slot * bits, (slot + 1) * bits), weight);
  }

  /** acc[j] += weight · staging[j]. */
  addStaged(weight: number): void {
    if (this.kernel !== null) this.kernel(this.region.accOffset, this.region.stagingOffset, this.memory.bits, weight);
    else accumulate(this.acc, this.staging, weight);
  }

  release(): void {
    this.region.release();
  }
}
