/**
 * The hamming-full tile in WebAssembly (hamming.wat): the same triples as `hammingTileTs`
 * in the same order, 64 bits per native popcount, stopping a comparison once its distance
 * exceeds maxDistance. Needs bits ≡ 0 (mod 256).
 */

import { WasmKernel, type WasmMemory } from "../../util/wasm-kernel.js";
import { wasm } from "./hamming.wat.js";

export const hammingKernel = new WasmKernel("hamming", wasm);

const PAGE = 65536;

/**
 * A kernel instance holding a private copy of one signature store (n × W words) and an
 * output area for `maxPairs` triples per call.
 */
export class HammingWasm {
  private readonly tileFn: (...args: number[]) => number;
  private readonly memory: WasmMemory;
  private readonly outByte: number;

  /** Use only where `hammingKernel.module()` is not null. */
  constructor(
    readonly store: Uint32Array,
    readonly W: number,
    readonly maxPairs: number,
  ) {
    if (W % 8 !== 0) throw new RangeError(`the WebAssembly kernel needs a multiple of 256 bits, got ${W * 32}`);
    this.outByte = store.byteLength;
    const bytes = this.outByte + 12 * maxPairs;
    if (bytes > 2 ** 32 - PAGE) throw new RangeError(`signature store of ${store.byteLength} bytes is too large for the WebAssembly kernel`);
    this.memory = hammingKernel.memory(Math.ceil(bytes / PAGE));
    new Uint32Array(this.memory.buffer, 0, store.length).set(store);
    this.tileFn = hammingKernel.instantiate(this.memory).tile as (...args: number[]) => number;
  }

  /** As hammingTileTs; (jTo − jFrom)·(iTo − iFrom) must not exceed maxPairs. */
  tile(iFrom: number, iTo: number, jFrom: number, jTo: number, upper: boolean, maxDistance: number, out: Uint32Array, outAt = 0): number {
    const found = this.tileFn(iFrom, iTo, jFrom, jTo, this.W * 4, maxDistance, this.outByte, upper ? 1 : 0);
    out.set(new Uint32Array(this.memory.buffer, this.outByte, 3 * found), outAt);
    return found;
  }
}
