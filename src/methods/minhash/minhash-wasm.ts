/**
 * `minhashSignature`'s loop in WebAssembly SIMD (minhash.wat): four permutations per i32x4
 * instruction, with the reference's wrapping 32-bit arithmetic, so the signatures are
 * identical.
 */

import { WasmKernel, type KernelStatus } from "../../util/wasm-kernel.js";
import { wasm } from "./minhash.wat.js";

const minhashKernel = new WasmKernel("minhash", wasm);

/** The kernel works on sixteen permutations at a time. */
function fits(numPerm: number): boolean {
  return numPerm > 0 && numPerm % 16 === 0;
}

/** On the coordinator: what signs with `numPerm` permutations, for the manifest (a fallback is told once through `warn`). */
export function minhashKernelStatus(numPerm: number, warn: (message: string) => void): KernelStatus {
  return fits(numPerm) ? minhashKernel.report(warn) : "typescript (--num-perm is not a multiple of 16)";
}

interface MinhashExports {
  minhash: (count: number, n: number) => void;
}

const PAGE = 65536;

/** The kernel's view of the permutations h(x) = a·x + b (minhash.ts Permutations). */
interface PermutationArrays {
  readonly count: number;
  readonly a: Int32Array;
  readonly b: Int32Array;
}

/**
 * A per-thread MinHash kernel for one set of permutations: write a set's low 32 bits into
 * `reserve(n)`, then `sign(n)` leaves its signature in `signature`.
 */
export class MinhashWasm {
  private run!: (count: number, n: number) => void;
  signature!: Int32Array;
  private lowBits!: Int32Array;

  private constructor(private readonly perms: PermutationArrays, capacity: number) {
    this.instantiate(capacity);
  }

  /** A kernel, or null where the module is unavailable or numPerm is not a multiple of 16. */
  static create(perms: PermutationArrays): MinhashWasm | null {
    if (!fits(perms.count) || minhashKernel.module() === null) return null;
    return new MinhashWasm(perms, 4096);
  }

  private instantiate(capacity: number): void {
    const count = this.perms.count;
    const memory = minhashKernel.memory(Math.ceil((4 * (3 * count + capacity)) / PAGE));
    const exports = minhashKernel.instantiate(memory) as unknown as MinhashExports;
    new Int32Array(memory.buffer, 0, count).set(this.perms.a);
    new Int32Array(memory.buffer, 4 * count, count).set(this.perms.b);
    this.signature = new Int32Array(memory.buffer, 8 * count, count);
    this.lowBits = new Int32Array(memory.buffer, 12 * count, capacity);
    this.run = exports.minhash;
  }

  /** Room for the low 32 bits of a set of n values (a view of at least n). */
  reserve(n: number): Int32Array {
    if (n > this.lowBits.length) this.instantiate(Math.max(n, 2 * this.lowBits.length));
    return this.lowBits;
  }

  /** The signature of the n values last written into `reserve(n)`, into `signature`. */
  sign(n: number): void {
    this.run(this.perms.count, n);
  }
}
