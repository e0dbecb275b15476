import { describe, expect, it } from "vitest";
import { countByte } from "../../src/util/count-byte.js";

function naive(buf: Uint8Array, byte: number, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (buf[i] === byte) n++;
  return n;
}

describe("countByte", () => {
  it("equals a byte-by-byte count at every alignment and range, for every byte value class", () => {
    let seed = 5;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const backing = new Uint8Array(300);
    // Bytes near the target (±1, 0x80 apart) catch false positives of the zero-byte test.
    for (const byte of [0x0a, 0x00, 0x7f, 0x80, 0xff]) {
      for (let i = 0; i < backing.length; i++) {
        const r = next() % 6;
        backing[i] = r === 0 ? byte : r === 1 ? (byte + 1) & 0xff : r === 2 ? (byte - 1) & 0xff : r === 3 ? byte ^ 0x80 : next() & 0xff;
      }
      for (let offset = 0; offset < 5; offset++) {
        const buf = backing.subarray(offset);
        for (const [from, to] of [[0, buf.length], [1, 2], [3, 77], [0, 0], [5, buf.length - 3]]) {
          expect(countByte(buf, byte, from, to)).toBe(naive(buf, byte, from, to));
        }
      }
    }
  });
});
