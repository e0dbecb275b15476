import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeFrame, encodeKeyFrames, FRAME_HEADER_WORDS, FRAME_KEYS, frameBodyWords, frameWindow, markFrameKeys } from "../../src/paragraph-dedup/key-frames.js";
import { rng } from "./random-corpus.js";

const MAX = (1n << 64n) - 1n;

/** Sorted unique keys as `lo, hi` pairs. */
function pairsOf(keys: readonly bigint[]): Uint32Array {
  const sorted = [...new Set(keys)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out = new Uint32Array(2 * sorted.length);
  sorted.forEach((k, i) => {
    out[2 * i] = Number(k & 0xffffffffn);
    out[2 * i + 1] = Number(k >> 32n);
  });
  return out;
}

/** The frames of encoded bytes, in order. */
function framesOf(bytes: Uint8Array): Uint32Array[] {
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const frames: Uint32Array[] = [];
  for (let at = 0; at < words.length; ) {
    const n = FRAME_HEADER_WORDS + frameBodyWords(words.subarray(at, at + FRAME_HEADER_WORDS));
    frames.push(words.subarray(at, at + n));
    at += n;
  }
  return frames;
}

function decodeAll(bytes: Uint8Array): Uint32Array {
  const parts = framesOf(bytes).map(decodeFrame);
  const out = new Uint32Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

const keyAt = (pairs: Uint32Array, k: number) => (BigInt(pairs[2 * k + 1]) << 32n) | BigInt(pairs[2 * k]);

/** 1 for each of the sorted `queries` in `held`, else 0. */
const expectedMarks = (held: ReadonlySet<bigint>, queries: Uint32Array) => Array.from({ length: queries.length / 2 }, (_, k) => (held.has(keyAt(queries, k)) ? 1 : 0));

/** Which of the sorted `queries` the encoded keys hold, as markKnown looks them up. */
function lookUp(bytes: Uint8Array, queries: Uint32Array): Uint8Array {
  const found = new Uint8Array(queries.length / 2);
  for (const frame of framesOf(bytes)) {
    const [from, to] = frameWindow(frame, queries);
    markFrameKeys(frame, queries, from, to, found);
  }
  return found;
}

/**
 * Keys around a random base within 2^spanBits (wrapping at 2^64), so that frames get every
 * low-part width from 0 (dense keys) to 63; plus the extreme keys when drawn.
 */
const keySets = fc
  .record({
    base: fc.bigInt({ min: 0n, max: MAX }),
    spanBits: fc.integer({ min: 0, max: 64 }),
    offsets: fc.array(fc.bigInt({ min: 0n, max: MAX }), { minLength: 1, maxLength: 300 }),
    extremes: fc.subarray([0n, 1n, MAX, MAX - 1n, 0xffffffffn, 1n << 32n]),
  })
  .map(({ base, spanBits, offsets, extremes }) => [...offsets.map((o) => (base + (o % (1n << BigInt(spanBits)))) & MAX), ...extremes]);

describe("key frames (index key format 2)", () => {
  it("round trip: decoding gives the sorted unique keys back, whatever their spread", () => {
    fc.assert(
      fc.property(keySets, (keys) => {
        const pairs = pairsOf(keys);
        expect(decodeAll(encodeKeyFrames(pairs))).toEqual(pairs);
      }),
    );
  });

  it("lookups: a sorted batch of keys, present, next to present ones and elsewhere, is found exactly where the keys hold it", () => {
    fc.assert(
      fc.property(keySets, fc.array(fc.bigInt({ min: 0n, max: MAX }), { maxLength: 50 }), (keys, others) => {
        const queries = pairsOf([...keys.filter((_, i) => i % 2 === 0), ...keys.flatMap((k) => [(k + 1n) & MAX, (k - 1n) & MAX]), ...others]);
        expect([...lookUp(encodeKeyFrames(pairsOf(keys)), queries)]).toEqual(expectedMarks(new Set(keys), queries));
      }),
    );
  });

  it("several frames of uniform hashes: round trip, lookups, and about L + 2 bits a key", () => {
    const r = rng(11);
    const word = () => Math.floor(r() * 2 ** 32);
    const keys = Array.from({ length: 2.5 * FRAME_KEYS }, () => (BigInt(word()) << 32n) | BigInt(word()));
    const pairs = pairsOf(keys);
    const bytes = encodeKeyFrames(pairs);
    expect(framesOf(bytes).length).toBe(3);
    expect(decodeAll(bytes)).toEqual(pairs);
    // A frame's 65,536 keys span 0.4 × 2^64: 46 low bits and about 2.5 of unary high part, 6.1 bytes, not 8.
    expect(bytes.length / (pairs.length / 2)).toBeLessThan(6.2);
    const queries = pairsOf([...keys.slice(0, 1000), ...keys.slice(0, 1000).map((k) => k ^ 1n)]);
    expect([...lookUp(bytes, queries)]).toEqual(expectedMarks(new Set(keys), queries));
  });
});
