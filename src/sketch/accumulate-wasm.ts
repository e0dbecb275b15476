/**
 * The sign pass's hot loop, acc[j] += weight · vector[j] (signature.ts `accumulate`,
 * `accumulateInt32`), in WebAssembly SIMD, one function per kind of term vector and sum:
 *
 * - `acc`, float32 vectors, float64 sums: two float32 components are widened exactly to
 *   float64 (f64x2.promote_low_f32x4), multiplied by the splatted weight and added to two
 *   accumulators per instruction.
 * - `acc8`, int8 vectors, float64 sums (real weights, tf-idf): eight int8 components are
 *   sign-extended to i16x8 (v128.load8x8_s), then to two i32x4, each converted exactly to two
 *   f64x2 (f64x2.convert_low_i32x4_s, the upper pair first moved down by a shuffle).
 * - `acc8i`, int8 vectors, int32 sums (integer weights, tf): sixteen int8 components are
 *   sign-extended to four i32x4, multiplied by the splatted weight and added, wrapping as
 *   `accumulateInt32` does.
 *
 * Each float product and sum is one correctly rounded IEEE 754 double operation, in the same
 * order per component as the TypeScript loop (WebAssembly never fuses a multiply-add), and
 * integer arithmetic is exact modulo 2^32 in both, so the accumulators — hence the signature
 * bits — are identical to the TypeScript functions', which stay the reference implementation.
 *
 * The kernels work on the shared memory of sign-memory.ts, so they read cached vectors where
 * they lie. The module is written here byte by byte (no toolchain). Its functions:
 *
 *   (func (export "acc") (param a i32) (param v i32) (param n i32) (param w f64)
 *     ws = f64x2.splat(w); end = a + 8n
 *     loop: for o in 0, 1:
 *             store128(a+16o, load128(a+16o) + promote(load64(v+8o)) · ws)
 *           a += 32; v += 16; br_if (a < end))
 *   (func (export "acc8") (param a i32) (param v i32) (param n i32) (param w f64)
 *     ws = f64x2.splat(w); end = a + 8n
 *     loop: for h in 0, 1: x = load8x8_s(v+8h)
 *             for k in 0, 1: q = k ? extend_high_i16(x) : extend_low_i16(x)
 *               store128(a+64h+32k,    load128(…) + convert_low(q) · ws)
 *               store128(a+64h+32k+16, load128(…) + convert_low(shuffle_high(q)) · ws)
 *           a += 128; v += 16; br_if (a < end))
 *   (func (export "acc8i") (param a i32) (param v i32) (param n i32) (param w i32)
 *     ws = i32x4.splat(w); end = a + 4n
 *     loop: x = load128(v); for h in 0, 1: q = extend_{low,high}_i8(x)
 *             for k in 0, 1: store128(a+32h+16k, load128(…) + extend_{low,high}_i16(q) · ws)
 *           a += 64; v += 16; br_if (a < end))
 */

import { moduleBytes, op, section, simd, simdOp, sleb, uleb, wasmName, webAssembly } from "../util/wasm-module.js";
import type { SignMemory } from "./sign-memory.js";

const { get: GET, set: SET, tee: TEE, i32Const: CONST, i32Add: ADD, i32Mul: MUL, i32LtU: LT_U } = op;
const {
  v128Load: V128_LOAD, v128Store: V128_STORE, load64Zero: LOAD64_ZERO, load8x8S: LOAD8X8_S, shuffle: SHUFFLE,
  f64x2Splat: F64X2_SPLAT, i32x4Splat: I32X4_SPLAT, promoteLow: PROMOTE_LOW, convertLowI32x4S: CONVERT_LOW,
  i16x8ExtendLowI8x16S: EXTEND_LOW_I8, i16x8ExtendHighI8x16S: EXTEND_HIGH_I8, i32x4ExtendLowI16x8S: EXTEND_LOW_I16, i32x4ExtendHighI16x8S: EXTEND_HIGH_I16,
  f64x2Add: F64X2_ADD, f64x2Mul: F64X2_MUL, i32x4Add: I32X4_ADD, i32x4Mul: I32X4_MUL,
} = simdOp;

/** Lanes 2, 3 of an i32x4 moved to lanes 0, 1 (bytes 8–15, then 0–7). */
const HIGH_PAIR = [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7];

/** A function body: its locals (groups of count, type), the code, the closing end. */
function body(locals: number[], code: number[]): number[] {
  const b = [...locals, ...code, 0x0b];
  return [...uleb(b.length), ...b];
}

/** The loop shared by the kernels: `step` over the accumulators, `vStep` over the vector, until a reaches end. */
function loop(a: number, v: number, end: number, step: number, vStep: number, work: number[]): number[] {
  return [
    0x03, 0x40, // loop
    ...work,
    GET, a, CONST, ...sleb(step), ADD, TEE, a,
    GET, v, CONST, ...sleb(vStep), ADD, SET, v,
    GET, end, LT_U, 0x0d, 0, // br_if 0
    0x0b, // end loop
  ];
}

// Parameters a, v, n, w are locals 0–3; end is 4; v128 locals follow.
const [A, V, N, W, END] = [0, 1, 2, 3, 4];

/** store128(a+offset, load128(a+offset) + (the product the `product` code leaves) ) in float64 or int32. */
function addAt(offset: number, product: number[], add: number): number[] {
  return [GET, A, GET, A, ...simd(V128_LOAD, 4, offset), ...product, ...simd(add), ...simd(V128_STORE, 4, offset)];
}

function accBody(): number[] {
  const ws = 5;
  const half = (o: number) => addAt(16 * o, [GET, V, ...simd(LOAD64_ZERO, 3, 8 * o), ...simd(PROMOTE_LOW), GET, ws, ...simd(F64X2_MUL)], F64X2_ADD);
  const code = [
    GET, W, ...simd(F64X2_SPLAT), SET, ws,
    GET, A, GET, N, CONST, 8, MUL, ADD, SET, END,
    ...loop(A, V, END, 32, 16, [...half(0), ...half(1)]),
  ];
  return body([2, 1, 0x7f, 1, 0x7b], code); // 1 × i32, 1 × v128
}

function acc8Body(): number[] {
  const [ws, x, q] = [5, 6, 7];
  const pairs = (h: number, k: number) => [
    GET, x, ...simd(k === 0 ? EXTEND_LOW_I16 : EXTEND_HIGH_I16), SET, q,
    ...addAt(64 * h + 32 * k, [GET, q, ...simd(CONVERT_LOW), GET, ws, ...simd(F64X2_MUL)], F64X2_ADD),
    ...addAt(64 * h + 32 * k + 16, [GET, q, GET, q, ...simd(SHUFFLE), ...HIGH_PAIR, ...simd(CONVERT_LOW), GET, ws, ...simd(F64X2_MUL)], F64X2_ADD),
  ];
  const eight = (h: number) => [GET, V, ...simd(LOAD8X8_S, 3, 8 * h), SET, x, ...pairs(h, 0), ...pairs(h, 1)];
  const code = [
    GET, W, ...simd(F64X2_SPLAT), SET, ws,
    GET, A, GET, N, CONST, 8, MUL, ADD, SET, END,
    ...loop(A, V, END, 128, 16, [...eight(0), ...eight(1)]),
  ];
  return body([2, 1, 0x7f, 3, 0x7b], code); // 1 × i32, 3 × v128
}

function acc8iBody(): number[] {
  const [ws, x, q] = [5, 6, 7];
  const quad = (h: number, k: number) => addAt(32 * h + 16 * k, [GET, q, ...simd(k === 0 ? EXTEND_LOW_I16 : EXTEND_HIGH_I16), GET, ws, ...simd(I32X4_MUL)], I32X4_ADD);
  const sixteen = (h: number) => [GET, x, ...simd(h === 0 ? EXTEND_LOW_I8 : EXTEND_HIGH_I8), SET, q, ...quad(h, 0), ...quad(h, 1)];
  const code = [
    GET, W, ...simd(I32X4_SPLAT), SET, ws,
    GET, A, GET, N, CONST, 4, MUL, ADD, SET, END,
    ...loop(A, V, END, 64, 16, [GET, V, ...simd(V128_LOAD, 4, 0), SET, x, ...sixteen(0), ...sixteen(1)]),
  ];
  return body([2, 1, 0x7f, 3, 0x7b], code); // 1 × i32, 3 × v128
}

/** The module for a shared memory of `pages` pages, imported as e.m. */
function accModule(pages: number): Uint8Array {
  return moduleBytes(
    section(1, [2, 0x60, 4, 0x7f, 0x7f, 0x7f, 0x7c, 0, 0x60, 4, 0x7f, 0x7f, 0x7f, 0x7f, 0]), // types (i32, i32, i32, f64) → (), (i32, i32, i32, i32) → ()
    section(2, [1, ...wasmName("e"), ...wasmName("m"), 2, 3, ...uleb(pages), ...uleb(pages)]), // shared memory
    section(3, [3, 0, 0, 1]),
    section(7, [3, ...wasmName("acc"), 0, 0, ...wasmName("acc8"), 0, 1, ...wasmName("acc8i"), 0, 2]),
    section(10, [3, ...accBody(), ...acc8Body(), ...acc8iBody()]),
  );
}

/** One kernel of one thread, bound to one SignMemory's WebAssembly memory. */
export type AccumulateKernel = (accOffset: number, vectorOffset: number, n: number, weight: number) => void;

/** The kernels of a memory: float32 vectors into float64 sums, int8 into float64, int8 into int32. */
export interface AccumulateKernels {
  acc: AccumulateKernel;
  acc8: AccumulateKernel;
  acc8i: AccumulateKernel;
}

const kernels = new WeakMap<object, AccumulateKernels>();

/**
 * The kernels over `memory`, instantiated once per thread and memory; null when the memory is
 * not a WebAssembly memory or the runtime lacks SIMD. Offsets are in bytes, n a multiple of 16.
 */
export function accumulateKernels(memory: SignMemory): AccumulateKernels | null {
  if (memory.memory === null || webAssembly === undefined) return null;
  let found = kernels.get(memory.memory);
  if (found === undefined) {
    try {
      const module = new webAssembly.Module(accModule(memory.buffer.byteLength / 65536));
      found = new webAssembly.Instance(module, { e: { m: memory.memory } }).exports as unknown as AccumulateKernels;
    } catch {
      return null;
    }
    kernels.set(memory.memory, found);
  }
  return found;
}
