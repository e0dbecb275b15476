import { openInput } from "../../src/corpus/open-input.js";

/**
 * The floor of the preparatory phase: decompress the input and find its lines (one
 * indexOf per line), nothing else. Any reader must at least do this.
 */
export async function readFloor(path: string): Promise<{ seconds: number; bytes: number; lines: number }> {
  const t0 = performance.now();
  let bytes = 0;
  let lines = 0;
  for await (const piece of openInput(path) as AsyncIterable<Buffer>) {
    bytes += piece.length;
    let i = piece.indexOf(0x0a);
    while (i !== -1) {
      lines++;
      i = piece.indexOf(0x0a, i + 1);
    }
  }
  return { seconds: (performance.now() - t0) / 1000, bytes, lines };
}
