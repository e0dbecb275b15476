/**
 * `minhashSignature`'s loop in WebAssembly SIMD: four permutations per i32x4 instruction,
 * min_s(a·x + b) over the set with wrapping 32-bit arithmetic — the same integers as the
 * TypeScript reference (Math.imul, | 0, signed comparison), so the signatures are identical.
 * Sixteen permutations at a time keep their a, b and running minima in twelve v128 locals
 * while the shingles stream past.
 *
 * The module is written here byte by byte (no toolchain). Its one function, in text form:
 *
 *   (func (export "minhash") (param count i32) (param n i32)   ;; count ≡ 0 (mod 16)
 *     for blk = 0; blk < 4·count; blk += 64:
 *       A_j = load128(blk + 16j); B_j = load128(4·count + blk + 16j); M_j = splat(0x7fffffff)
 *       for p in [12·count, 12·count + 4n) step 4:
 *         x = load32_splat(p); M_j = min_s(M_j, A_j·x + B_j)      (j = 0..3)
 *       store128(8·count + blk + 16j, M_j))
 *
 * Memory (own, exported): a [0, 4·count), b [4·count, 8·count), the signature
 * [8·count, 12·count), then the set's low 32 bits from 12·count.
 */

import { moduleBytes, op, section, simd, simdOp, sleb, uleb, wasmName, webAssembly } from "../util/wasm-module.js";
import type { Permutations } from "./minhash.js";

const { get: GET, set: SET, tee: TEE, i32Const: CONST, i32Add: ADD, i32Mul: MUL, i32LtU: LT_U, i32GeU: GE_U } = op;
const { block: BLOCK, loop: LOOP, end: END, brIf: BR_IF, void: VOID } = op;
const { v128Load: V128_LOAD, v128Store: V128_STORE, load32Splat: LOAD32_SPLAT, i32x4Splat: I32X4_SPLAT, i32x4Add: I32X4_ADD, i32x4Mul: I32X4_MUL, i32x4MinS: I32X4_MIN_S } = simdOp;

function minhashBody(): number[] {
  const [count, n, blk, p, end, bBase, oBase, x] = [0, 1, 2, 3, 4, 5, 6, 7];
  const A = [8, 9, 10, 11];
  const B = [12, 13, 14, 15];
  const M = [16, 17, 18, 19];
  const j4 = [0, 1, 2, 3];
  const code = [
    GET, count, CONST, 4, MUL, SET, bBase,
    GET, count, CONST, 8, MUL, SET, oBase,
    GET, count, CONST, 12, MUL, GET, n, CONST, 4, MUL, ADD, SET, end,
    LOOP, VOID,
    ...j4.flatMap((j) => [GET, blk, ...simd(V128_LOAD, 4, 16 * j), SET, A[j]]),
    ...j4.flatMap((j) => [GET, blk, GET, bBase, ADD, ...simd(V128_LOAD, 4, 16 * j), SET, B[j]]),
    ...j4.flatMap((j) => [CONST, ...sleb(0x7fffffff), ...simd(I32X4_SPLAT), SET, M[j]]),
    GET, count, CONST, 12, MUL, SET, p,
    BLOCK, VOID,
    GET, p, GET, end, GE_U, BR_IF, 0,
    LOOP, VOID,
    GET, p, ...simd(LOAD32_SPLAT, 2, 0), SET, x,
    ...j4.flatMap((j) => [GET, M[j], GET, A[j], GET, x, ...simd(I32X4_MUL), GET, B[j], ...simd(I32X4_ADD), ...simd(I32X4_MIN_S), SET, M[j]]),
    GET, p, CONST, 4, ADD, TEE, p, GET, end, LT_U, BR_IF, 0,
    END,
    END,
    ...j4.flatMap((j) => [GET, blk, GET, oBase, ADD, GET, M[j], ...simd(V128_STORE, 4, 16 * j)]),
    GET, blk, CONST, ...sleb(64), ADD, TEE, blk, GET, bBase, LT_U, BR_IF, 0,
    END,
    END,
  ];
  const locals = [2, 5, 0x7f, 13, 0x7b]; // blk, p, end, bBase, oBase: i32; x, A, B, M: v128
  const body = [...locals, ...code];
  return [...uleb(body.length), ...body];
}

function minhashModule(pages: number): Uint8Array {
  return moduleBytes(
    section(1, [1, 0x60, 2, 0x7f, 0x7f, 0]), // type (i32, i32) → ()
    section(3, [1, 0]),
    section(5, [1, 0, ...uleb(pages)]),
    section(7, [2, ...wasmName("minhash"), 0, 0, ...wasmName("mem"), 2, 0]),
    section(10, [1, ...minhashBody()]),
  );
}

interface MinhashExports {
  minhash: (count: number, n: number) => void;
  mem: { buffer: ArrayBuffer };
}

const PAGE = 65536;

/**
 * A per-thread MinHash kernel for one set of permutations: write a set's low 32 bits into
 * `reserve(n)`, then `sign(n)` leaves its signature in `signature`.
 */
export class MinhashWasm {
  private run!: (count: number, n: number) => void;
  signature!: Int32Array;
  private lowBits!: Int32Array;

  private constructor(private readonly perms: Permutations, capacity: number) {
    this.instantiate(capacity);
  }

  /** A kernel, or null where WebAssembly SIMD is missing or numPerm is not a multiple of 16. */
  static create(perms: Permutations): MinhashWasm | null {
    if (webAssembly === undefined || perms.count === 0 || perms.count % 16 !== 0) return null;
    try {
      return new MinhashWasm(perms, 4096);
    } catch {
      return null;
    }
  }

  private instantiate(capacity: number): void {
    const api = webAssembly as NonNullable<typeof webAssembly>;
    const count = this.perms.count;
    const module = new api.Module(minhashModule(Math.ceil((4 * (3 * count + capacity)) / PAGE)));
    const exports = new api.Instance(module).exports as unknown as MinhashExports;
    const memory = exports.mem.buffer;
    new Int32Array(memory, 0, count).set(this.perms.a);
    new Int32Array(memory, 4 * count, count).set(this.perms.b);
    this.signature = new Int32Array(memory, 8 * count, count);
    this.lowBits = new Int32Array(memory, 12 * count, capacity);
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
