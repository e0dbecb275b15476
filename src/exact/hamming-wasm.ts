/**
 * The hamming-full kernel in WebAssembly: the same tile as `hammingTileTs`, but 64 bits at a
 * time with the native popcount (`i64.popcnt`, one POPCNT instruction on x86-64) instead of
 * a SWAR popcount of 32-bit halves. The distance is checked against maxDistance after every
 * 256 bits: two unrelated 1024-bit signatures differ in ≈128 of the first 256 bits, so at the
 * usual thresholds most comparisons stop after four popcounts. Needs bits ≡ 0 (mod 256).
 *
 * The module is small enough to be written here byte by byte (no toolchain needed). Its one
 * function, in the text format:
 *
 *   (func (export "tile") (param iFrom iTo jFrom jTo rowBytes maxD out upper) (result i32)
 *     for i in [iFrom, iTo):  a = i·rowBytes
 *       for j in [upper ? max(jFrom, i+1) : jFrom, jTo):  b = j·rowBytes, d = 0
 *         for k = 0; k < rowBytes; k += 32:
 *           d += Σ_{o ∈ 0,8,16,24} popcnt(load64(a+k+o) ^ load64(b+k+o))
 *           if d > maxD: next j
 *         store (i, j, d) at p; p += 12
 *     return (p − out) / 12)
 *
 * Memory (imported): the signatures from byte 0, the output area from `out`.
 */

import { moduleBytes, op, section, sleb, uleb, wasmName, webAssembly } from "../util/wasm-module.js";

const I32 = 0x7f;

function tileBody(): number[] {
  // Parameters 0..7, locals 8..14.
  const [iFrom, iTo, jFrom, jTo, rowBytes, maxD, out, upper] = [0, 1, 2, 3, 4, 5, 6, 7];
  const [i, j, a, b, k, d, p] = [8, 9, 10, 11, 12, 13, 14];
  const { get, set, tee } = op;
  const popcntAt = (offset: number) => [
    get, d,
    get, a, get, k, op.i32Add, op.i64Load, 3, ...uleb(offset),
    get, b, get, k, op.i32Add, op.i64Load, 3, ...uleb(offset),
    op.i64Xor, op.i64Popcnt, op.i32WrapI64, op.i32Add, set, d,
  ];
  const store = (value: number, offset: number) => [get, p, get, value, op.i32Store, 2, ...uleb(offset)];
  return [
    1, 7, I32, // seven i32 locals
    get, out, set, p,
    get, iFrom, set, i,
    op.block, op.void,
    op.loop, op.void,
    get, i, get, iTo, op.i32GeU, op.brIf, 1,
    // j = upper ? max(jFrom, i + 1) : jFrom
    get, i, op.i32Const, 1, op.i32Add, tee, j, get, jFrom, get, j, get, jFrom, op.i32GtU, op.select, set, j,
    get, j, get, jFrom, get, upper, op.select, set, j,
    get, i, get, rowBytes, op.i32Mul, set, a,
    op.block, op.void,
    op.loop, op.void,
    get, j, get, jTo, op.i32GeU, op.brIf, 1,
    op.block, op.void, // next j
    get, j, get, rowBytes, op.i32Mul, set, b,
    op.i32Const, 0, set, d,
    op.i32Const, 0, set, k,
    op.loop, op.void,
    ...popcntAt(0), ...popcntAt(8), ...popcntAt(16), ...popcntAt(24),
    get, d, get, maxD, op.i32GtU, op.brIf, 1,
    get, k, op.i32Const, ...sleb(32), op.i32Add, tee, k, get, rowBytes, op.i32LtU, op.brIf, 0,
    op.end,
    ...store(i, 0), ...store(j, 4), ...store(d, 8),
    get, p, op.i32Const, ...sleb(12), op.i32Add, set, p,
    op.end, // next j
    get, j, op.i32Const, 1, op.i32Add, set, j, op.br, 0,
    op.end,
    op.end,
    get, i, op.i32Const, 1, op.i32Add, set, i, op.br, 0,
    op.end,
    op.end,
    get, p, get, out, op.i32Sub, op.i32Const, ...sleb(12), op.i32DivU,
    op.end,
  ];
}

function tileModule(): Uint8Array {
  const body = tileBody();
  return moduleBytes(
    section(1, [1, 0x60, 8, ...Array<number>(8).fill(I32), 1, I32]),
    section(2, [1, ...wasmName("e"), ...wasmName("m"), 0x02, 0x00, 1]),
    section(3, [1, 0]),
    section(7, [1, ...wasmName("tile"), 0x00, 0]),
    section(10, [1, ...uleb(body.length), ...body]),
  );
}

let compiled: object | null = null;

const PAGE = 65536;

/**
 * A kernel instance holding a private copy of one signature store (n × W words) and an
 * output area for `maxPairs` triples per call.
 */
export class HammingWasm {
  private readonly tileFn: (...args: number[]) => number;
  private readonly memory: { buffer: ArrayBuffer };
  private readonly outByte: number;

  constructor(
    readonly store: Uint32Array,
    readonly W: number,
    readonly maxPairs: number,
  ) {
    if (W % 8 !== 0) throw new RangeError(`the WebAssembly kernel needs a multiple of 256 bits, got ${W * 32}`);
    if (webAssembly === undefined) throw new Error("the WebAssembly kernel needs a runtime with WebAssembly");
    compiled ??= new webAssembly.Module(tileModule());
    this.outByte = store.byteLength;
    const bytes = this.outByte + 12 * maxPairs;
    if (bytes > 2 ** 32 - PAGE) throw new RangeError(`signature store of ${store.byteLength} bytes is too large for the WebAssembly kernel`);
    this.memory = new webAssembly.Memory({ initial: Math.ceil(bytes / PAGE) });
    new Uint32Array(this.memory.buffer, 0, store.length).set(store);
    const instance = new webAssembly.Instance(compiled, { e: { m: this.memory } });
    this.tileFn = instance.exports.tile as (...args: number[]) => number;
  }

  /** As hammingTileTs; (jTo − jFrom)·(iTo − iFrom) must not exceed maxPairs. */
  tile(iFrom: number, iTo: number, jFrom: number, jTo: number, upper: boolean, maxDistance: number, out: Uint32Array, outAt = 0): number {
    const found = this.tileFn(iFrom, iTo, jFrom, jTo, this.W * 4, maxDistance, this.outByte, upper ? 1 : 0);
    out.set(new Uint32Array(this.memory.buffer, this.outByte, 3 * found), outAt);
    return found;
  }
}
