/**
 * The sign pass's hot loop, acc[j] += weight · vector[j], in WebAssembly SIMD (accumulate.wat):
 * one function per kind of term vector and sum, with the same IEEE 754 operations in the same
 * order as signature.ts `accumulate`, or the same integers modulo 2^32 as `accumulateInt32`,
 * so the signature bits are identical.
 * The kernels work on the shared memory of sign-memory.ts and read cached vectors in place.
 */

import { WasmKernel, type KernelStatus, type WasmMemory } from "../util/wasm-kernel.js";
import { wasm } from "./accumulate.wat.js";
import type { SignMemory } from "./sign-memory.js";

const accumulateKernel = new WasmKernel("accumulate", wasm, true);

/** On the coordinator, before the sign pass: its status for the manifest (a fallback is told once through `warn`). */
export function accumulateKernelStatus(memory: SignMemory, warn: (message: string) => void): KernelStatus {
  const status = accumulateKernel.report(warn);
  return status === "webassembly" && memory.memory === null ? "typescript (the sign memory is not a WebAssembly memory)" : status;
}

/** One kernel of one thread, bound to one SignMemory's WebAssembly memory. */
export type AccumulateKernel = (accOffset: number, vectorOffset: number, n: number, weight: number) => void;

/**
 * The kernels of a memory: float32 vectors into float64 sums, int8 into float64 (one vector, or
 * four in term order), int8 into int32 (one vector, or four with int16 weights, two per i32
 * argument: w01 = w0 & 0xffff | w1 << 16; or a block of documents, summed and signed).
 */
export interface AccumulateKernels {
  acc: AccumulateKernel;
  acc8: AccumulateKernel;
  acc8x4: (accOffset: number, v0: number, v1: number, v2: number, v3: number, n: number, w0: number, w1: number, w2: number, w3: number) => void;
  acc8i: AccumulateKernel;
  acc8d4: (accOffset: number, v0: number, v1: number, v2: number, v3: number, n: number, w01: number, w23: number) => void;
  /** A block of documents summed and signed (accumulate.wat), `scratch` 4·n bytes. */
  acc8block: (blockOffset: number, docs: number, n: number, scratch: number) => void;
}

const kernels = new WeakMap<object, AccumulateKernels>();

/**
 * The kernels over `memory`, instantiated once per thread and memory; null when the memory is
 * not a WebAssembly memory or the kernel is unavailable. Offsets are in bytes, n a multiple of 16.
 */
export function accumulateKernels(memory: SignMemory): AccumulateKernels | null {
  if (memory.memory === null || accumulateKernel.module() === null) return null;
  let found = kernels.get(memory.memory);
  if (found === undefined) {
    found = accumulateKernel.instantiate(memory.memory as WasmMemory) as unknown as AccumulateKernels;
    kernels.set(memory.memory, found);
  }
  return found;
}
