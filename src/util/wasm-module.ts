/**
 * Helpers to write a WebAssembly module byte by byte, left for sketch/accumulate-wasm.ts
 * until its kernel too is a `.wat` file loaded by util/wasm-kernel.ts (then this module goes).
 */

/** Where accumulate-wasm.ts and sign-memory.ts import it from. */
export { webAssembly } from "./wasm-kernel.js";

/** Unsigned LEB128. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 (i32.const immediates). */
export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

/** Opcodes of the plain instructions the kernels use. */
export const op = {
  get: 0x20, set: 0x21, tee: 0x22, i32Const: 0x41, i32LtU: 0x49, i32Add: 0x6a, i32Mul: 0x6c,
} as const;

/** Opcodes of the SIMD instructions the kernels use (after the 0xfd prefix that `simd` writes). */
export const simdOp = {
  v128Load: 0, load8x8S: 1, load32Splat: 9, v128Store: 11, shuffle: 13, i32x4Splat: 17, f64x2Splat: 20, load64Zero: 93, promoteLow: 95,
  i16x8ExtendLowI8x16S: 135, i16x8ExtendHighI8x16S: 136, i32x4ExtendLowI16x8S: 167, i32x4ExtendHighI16x8S: 168,
  i32x4Add: 174, i32x4Mul: 181, i32x4MinS: 182, f64x2Add: 240, f64x2Mul: 242, convertLowI32x4S: 254,
} as const;

/** A section: its id, the byte length of its body, the body. */
export function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

/** A name (import, export): its length, then its ASCII bytes. */
export function wasmName(s: string): number[] {
  return [...uleb(s.length), ...Buffer.from(s, "ascii")];
}

/** A binary module: the magic number and version 1, then the sections in order. */
export function moduleBytes(...sections: number[][]): Uint8Array {
  return Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...sections.flat()]);
}

/** A SIMD instruction: the 0xfd prefix, its opcode and its memory argument (align, offset), if any. */
export function simd(opcode: number, ...memarg: number[]): number[] {
  return [0xfd, ...uleb(opcode), ...memarg.flatMap(uleb)];
}
