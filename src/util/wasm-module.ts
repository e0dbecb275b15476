/**
 * Helpers to write small WebAssembly modules byte by byte (the kernels in exact/hamming-wasm.ts
 * and sketch/accumulate-wasm.ts need no toolchain), and the runtime's WebAssembly object.
 */

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

/** The part of the WebAssembly API used here (the project's lib settings do not declare it). */
export interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports?: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
}

/** The runtime's WebAssembly, undefined where there is none. */
export const webAssembly = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
