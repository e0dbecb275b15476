/**
 * The sign pass's hot loop, acc[j] += weight · vector[j] (signature.ts `accumulate`), in
 * WebAssembly SIMD: two float32 components are widened exactly to float64
 * (f64x2.promote_low_f32x4), multiplied by the splatted weight and added to two
 * accumulators per instruction. Each product and each sum is one correctly rounded IEEE 754
 * double operation, in the same order per component as the TypeScript loop (WebAssembly
 * never fuses a multiply-add), so the accumulators — hence the signature bits — are
 * identical to `accumulate`'s. The TypeScript function stays the reference implementation.
 *
 * The module is written here byte by byte (no toolchain). Its one function, in text form:
 *
 *   (func (export "acc") (param n i32) (param w f64)        ;; acc at byte 0, vec at 8n
 *     ws = f64x2.splat(w); a = 0; v = end = 8n
 *     loop: for o in 0, 1:
 *             store128(a+16o, load128(a+16o) + promote(load64(v+8o)) · ws)
 *           a += 32; v += 16; br_if (a < end))
 *
 * Memory (own, exported): the float64 accumulators [0, 8n), then the float32 staging vector
 * [8n, 12n) that `add` copies a term vector into (or termVector writes straight into).
 */

import { moduleBytes, op, section, simd, simdOp, uleb, wasmName, webAssembly } from "../util/wasm-module.js";

const { get: GET, set: SET, tee: TEE, i32Const: CONST, i32Add: ADD, i32Mul: MUL, i32LtU: LT_U } = op;
const { v128Load: V128_LOAD, v128Store: V128_STORE, load64Zero: LOAD64_ZERO, f64x2Splat: F64X2_SPLAT, promoteLow: PROMOTE_LOW, f64x2Add: F64X2_ADD, f64x2Mul: F64X2_MUL } = simdOp;

function accBody(): number[] {
  const [n, w, a, v, end, ws] = [0, 1, 2, 3, 4, 5];
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
    GET, n, CONST, 8, MUL, TEE, v, SET, end,
    0x03, 0x40, // loop
    ...half(0), ...half(1),
    GET, a, CONST, 32, ADD, TEE, a,
    GET, v, CONST, 16, ADD, SET, v,
    GET, end, LT_U, 0x0d, 0, // br_if 0
    0x0b, // end loop
    0x0b, // end function
  ];
  const locals = [2, 3, 0x7f, 1, 0x7b]; // 3 × i32, 1 × v128
  const body = [...locals, ...code];
  return [...uleb(body.length), ...body];
}

function accModule(pages: number): Uint8Array {
  return moduleBytes(
    section(1, [1, 0x60, 2, 0x7f, 0x7c, 0]), // type (i32, f64) → ()
    section(3, [1, 0]),
    section(5, [1, 0, ...uleb(pages)]),
    section(7, [2, ...wasmName("acc"), 0, 0, ...wasmName("mem"), 2, 0]),
    section(10, [1, ...accBody()]),
  );
}

/** What the module exports. */
interface AccExports {
  acc: (n: number, w: number) => void;
  mem: { buffer: ArrayBuffer };
}

/**
 * A per-thread accumulator of `bits` float64 projections backed by the module's memory.
 * `acc` and `staging` are views into it; `add`/`addStaged` apply one term.
 */
export class WasmAccumulator {
  readonly acc: Float64Array;
  /** termVector may write here directly; then call addStaged. */
  readonly staging: Float32Array;
  private readonly run: (n: number, w: number) => void;

  private constructor(readonly bits: number, exports: AccExports) {
    this.acc = new Float64Array(exports.mem.buffer, 0, bits);
    this.staging = new Float32Array(exports.mem.buffer, bits * 8, bits);
    this.run = exports.acc;
  }

  /** An accumulator for `bits` (a positive multiple of 4), or null without WebAssembly SIMD. */
  static create(bits: number): WasmAccumulator | null {
    if (!Number.isInteger(bits) || bits <= 0 || bits % 4 !== 0) throw new RangeError(`invalid bits ${bits}`);
    if (webAssembly === undefined) return null;
    try {
      const module = new webAssembly.Module(accModule(Math.ceil((bits * 12) / 65536)));
      return new WasmAccumulator(bits, new webAssembly.Instance(module).exports as unknown as AccExports);
    } catch {
      return null;
    }
  }

  reset(): void {
    this.acc.fill(0);
  }

  /** acc[j] += weight · vector[j]. */
  add(vector: Float32Array, weight: number): void {
    this.staging.set(vector);
    this.run(this.bits, weight);
  }

  /** acc[j] += weight · staging[j]. */
  addStaged(weight: number): void {
    this.run(this.bits, weight);
  }
}
