/**
 * The sign pass's hot loop, acc[j] += weight · vector[j] (signature.ts `accumulate`), in
 * WebAssembly SIMD: two float32 components are widened exactly to float64
 * (f64x2.promote_low_f32x4), multiplied by the splatted weight and added to two
 * accumulators per instruction. Each product and each sum is one correctly rounded IEEE 754
 * double operation, in the same order per component as the TypeScript loop (WebAssembly
 * never fuses a multiply-add), so the accumulators — hence the signature bits — are
 * identical to `accumulate`'s. The TypeScript function stays the reference implementation.
 *
 * The kernel works on the shared memory of sign-memory.ts, so it reads cached vectors where
 * they lie. The module is written here byte by byte (no toolchain). Its one function:
 *
 *   (func (export "acc") (param a i32) (param v i32) (param n i32) (param w f64)
 *     ws = f64x2.splat(w); end = a + 8n
 *     loop: for o in 0, 1:
 *             store128(a+16o, load128(a+16o) + promote(load64(v+8o)) · ws)
 *           a += 32; v += 16; br_if (a < end))
 */

import { moduleBytes, op, section, simd, simdOp, uleb, wasmName, webAssembly } from "../util/wasm-module.js";
import type { SignMemory } from "./sign-memory.js";

const { get: GET, set: SET, tee: TEE, i32Const: CONST, i32Add: ADD, i32Mul: MUL, i32LtU: LT_U } = op;
const { v128Load: V128_LOAD, v128Store: V128_STORE, load64Zero: LOAD64_ZERO, f64x2Splat: F64X2_SPLAT, promoteLow: PROMOTE_LOW, f64x2Add: F64X2_ADD, f64x2Mul: F64X2_MUL } = simdOp;

function accBody(): number[] {
  const [a, v, n, w, end, ws] = [0, 1, 2, 3, 4, 5];
  const half = (o: number) => [
    GET, a,
    GET, a, ...simd(V128_LOAD, 4, 16 * o),
    GET, v, ...simd(LOAD64_ZERO, 3, 8 * o), ...simd(PROMOTE_LOW),
    GET, ws, ...simd(F64X2_MUL),
    ...simd(F64X2_ADD),
    ...simd(V128_STORE, 4, 16 * o),
  ];
  const code = [
    GET, w, ...simd(F64X2_SPLAT), SET, ws,
    GET, a, GET, n, CONST, 8, MUL, ADD, SET, end,
    0x03, 0x40, // loop
    ...half(0), ...half(1),
    GET, a, CONST, 32, ADD, TEE, a,
    GET, v, CONST, 16, ADD, SET, v,
    GET, end, LT_U, 0x0d, 0, // br_if 0
    0x0b, // end loop
    0x0b, // end function
  ];
  const locals = [2, 1, 0x7f, 1, 0x7b]; // 1 × i32, 1 × v128
  const body = [...locals, ...code];
  return [...uleb(body.length), ...body];
}

/** The module for a shared memory of `pages` pages, imported as e.m. */
function accModule(pages: number): Uint8Array {
  return moduleBytes(
    section(1, [1, 0x60, 4, 0x7f, 0x7f, 0x7f, 0x7c, 0]), // type (i32, i32, i32, f64) → ()
    section(2, [1, ...wasmName("e"), ...wasmName("m"), 2, 3, ...uleb(pages), ...uleb(pages)]), // shared memory
    section(3, [1, 0]),
    section(7, [1, ...wasmName("acc"), 0, 0]),
    section(10, [1, ...accBody()]),
  );
}

/** The kernel of one thread, bound to one SignMemory's WebAssembly memory. */
export type AccumulateKernel = (accOffset: number, vectorOffset: number, n: number, weight: number) => void;

const kernels = new WeakMap<object, AccumulateKernel>();

/**
 * The kernel over `memory`, instantiated once per thread and memory; null when the memory is
 * not a WebAssembly memory or the runtime lacks SIMD. Offsets are in bytes, n a multiple of 4.
 */
export function accumulateKernel(memory: SignMemory): AccumulateKernel | null {
  if (memory.memory === null || webAssembly === undefined) return null;
  let kernel = kernels.get(memory.memory);
  if (kernel === undefined) {
    try {
      const module = new webAssembly.Module(accModule(memory.buffer.byteLength / 65536));
      kernel = new webAssembly.Instance(module, { e: { m: memory.memory } }).exports.acc as AccumulateKernel;
    } catch {
      return null;
    }
    kernels.set(memory.memory, kernel);
  }
  return kernel;
}
