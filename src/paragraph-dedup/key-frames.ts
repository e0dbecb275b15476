import { popcount32 } from "../pleb/hamming.js";

/**
 * Sorted unique 64-bit n-gram keys (`lo, hi` pairs, by hi then lo) in frames of Elias–Fano
 * code: the index's key format 2 (ngram-index.ts). A frame's keys are taken relative to its
 * first one and split at bit L, L ≈ log2(span / n): the low L bits of each are stored packed
 * (as a lane of min(L, 32) bits and one of L − 32), the high part as a bit vector where key i
 * sets bit high(i) + i, i.e. in unary — about L + 2 bits a key in all, near the entropy of
 * uniform hashes, and no decompression to read. More: a sorted batch of keys is looked up by
 * walking the bit vector (a popcount per 32 bits, ~16 keys) and decoding only the few keys
 * whose high part equals the looked-up key's, so reading an index costs little per index key.
 *
 * A frame, in u32 words: n, L, first key (lo, hi), last key (lo, hi), words of the bit
 * vector; then the low lanes, the L − 32 lanes, the bit vector (one zero bit at least after
 * the last key's, where a lookup stops).
 */
export const FRAME_KEYS = 1 << 16;
export const FRAME_HEADER_WORDS = 7;

/** Header fields of a frame (word offsets). */
const N = 0;
const L_BITS = 1;
const FIRST_LO = 2;
const FIRST_HI = 3;
const LAST_LO = 4;
const LAST_HI = 5;
const UPPER_WORDS = 6;

/** Words of a frame after its header, from the header. */
export function frameBodyWords(header: Uint32Array): number {
  const n = header[N];
  const l = header[L_BITS];
  return packedWords(n, Math.min(l, 32)) + packedWords(n, Math.max(0, l - 32)) + header[UPPER_WORDS];
}

const packedWords = (n: number, width: number) => Math.ceil((n * width) / 32);

/** The low `width` (≤ 32) bits of v. */
const lowBits = (v: number, width: number) => (width === 32 ? v >>> 0 : (v & ((1 << width) - 1)) >>> 0);

/** (hi, lo) >> l, for a result under 2^32. */
function shiftRight(hi: number, lo: number, l: number): number {
  if (l === 0) return lo;
  return l < 32 ? ((hi << (32 - l)) | (lo >>> l)) >>> 0 : hi >>> (l - 32);
}

function put(words: Uint32Array, at: number, bit: number, width: number, v: number): void {
  if (width === 0) return;
  const i = at + (bit >>> 5);
  const off = bit & 31;
  words[i] |= v << off;
  if (off + width > 32) words[i + 1] |= v >>> (32 - off);
}

function get(words: Uint32Array, at: number, bit: number, width: number): number {
  if (width === 0) return 0;
  const i = at + (bit >>> 5);
  const off = bit & 31;
  let v = words[i] >>> off;
  if (off + width > 32) v |= words[i + 1] << (32 - off);
  return lowBits(v, width);
}

/** L for n keys spanning (spanHi, spanLo): the floor of log2((span + 1) / n), at least 0. */
function lowWidth(spanHi: number, spanLo: number, n: number): number {
  const ratio = (spanHi * 2 ** 32 + spanLo + 1) / n;
  return ratio < 2 ? 0 : Math.min(63, Math.floor(Math.log2(ratio)));
}

/** One frame of the sorted keys `pairs` (at most FRAME_KEYS). */
function encodeFrame(pairs: Uint32Array): Uint32Array {
  const n = pairs.length / 2;
  const firstLo = pairs[0];
  const firstHi = pairs[1];
  const lastLo = pairs[2 * n - 2];
  const lastHi = pairs[2 * n - 1];
  const spanLo = (lastLo - firstLo) >>> 0;
  const spanHi = (lastHi - firstHi - (lastLo < firstLo ? 1 : 0)) >>> 0;
  const l = lowWidth(spanHi, spanLo, n);
  const wLo = Math.min(l, 32);
  const wHi = Math.max(0, l - 32);
  // + 1: a zero bit after the last key's one, where a lookup's scan of candidates stops.
  const upperWords = Math.ceil((shiftRight(spanHi, spanLo, l) + n + 1) / 32);
  const loAt = FRAME_HEADER_WORDS;
  const hiAt = loAt + packedWords(n, wLo);
  const upperAt = hiAt + packedWords(n, wHi);
  const frame = new Uint32Array(upperAt + upperWords);
  frame.set([n, l, firstLo, firstHi, lastLo, lastHi, upperWords]);
  for (let i = 0; i < n; i++) {
    const uLo = (pairs[2 * i] - firstLo) >>> 0;
    const uHi = (pairs[2 * i + 1] - firstHi - (pairs[2 * i] < firstLo ? 1 : 0)) >>> 0;
    put(frame, loAt, i * wLo, wLo, lowBits(uLo, wLo));
    put(frame, hiAt, i * wHi, wHi, lowBits(uHi, wHi));
    const bit = shiftRight(uHi, uLo, l) + i;
    frame[upperAt + (bit >>> 5)] |= 1 << (bit & 31);
  }
  return frame;
}

/** The bytes of sorted unique keys (`lo, hi` pairs, by hi then lo): frames back to back. */
export function encodeKeyFrames(sorted: Uint32Array): Uint8Array {
  const frames: Uint32Array[] = [];
  for (let start = 0; start < sorted.length; start += 2 * FRAME_KEYS) frames.push(encodeFrame(sorted.subarray(start, Math.min(sorted.length, start + 2 * FRAME_KEYS))));
  const out = new Uint32Array(frames.reduce((n, f) => n + f.length, 0));
  frames.reduce((at, f) => (out.set(f, at), at + f.length), 0);
  return new Uint8Array(out.buffer);
}

/** Whether key (aHi, aLo) < (bHi, bLo), unsigned. */
const less = (aHi: number, aLo: number, bHi: number, bLo: number) => aHi < bHi || (aHi === bHi && aLo < bLo);

/** The first pair of `sorted` from `from` whose key is not below (hi, lo). */
function lowerBound(sorted: Uint32Array, from: number, hi: number, lo: number): number {
  let a = from;
  let b = sorted.length / 2;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (less(sorted[2 * m + 1], sorted[2 * m], hi, lo)) a = m + 1;
    else b = m;
  }
  return a;
}

/** The pairs of `sorted` (sorted unique keys) that a frame's keys may match: [from, to). */
export function frameWindow(header: Uint32Array, sorted: Uint32Array): [number, number] {
  const from = lowerBound(sorted, 0, header[FIRST_HI], header[FIRST_LO]);
  const lastLo = header[LAST_LO];
  const lastHi = header[LAST_HI];
  // One past the last key: the first pair above (lastHi, lastLo).
  const to = lastLo === 0xffffffff ? (lastHi === 0xffffffff ? sorted.length / 2 : lowerBound(sorted, from, lastHi + 1, 0)) : lowerBound(sorted, from, lastHi, lastLo + 1);
  return [from, to];
}

/**
 * Where a frame keeps its parts: n keys, l low bits each (split into the wLo bits of the first
 * word array and the wHi bits of the second), then the unary upper bit vector.
 */
function frameLayout(frame: Uint32Array) {
  const n = frame[N];
  const l = frame[L_BITS];
  const wLo = Math.min(l, 32);
  const wHi = Math.max(0, l - 32);
  const loAt = FRAME_HEADER_WORDS;
  const hiAt = loAt + packedWords(n, wLo);
  return { n, l, firstLo: frame[FIRST_LO], firstHi: frame[FIRST_HI], wLo, wHi, loAt, hiAt, upperAt: hiAt + packedWords(n, wHi) };
}

/**
 * Sets `found[k]` for each key k of `sorted` (sorted unique `lo, hi` pairs) in [from, to) —
 * frameWindow's — that the frame (header at `frame[0]`) holds. One pass over the frame's bit
 * vector: the keys are looked up in order.
 */
export function markFrameKeys(frame: Uint32Array, sorted: Uint32Array, from: number, to: number, found: Uint8Array): void {
  const { l, firstLo, firstHi, wLo, wHi, loAt, hiAt, upperAt } = frameLayout(frame);
  // The scan: `pos` is just past the `high`-th zero bit (key `pos - high` is the next one bit).
  let pos = 0;
  let high = 0;
  for (let k = from; k < to; k++) {
    const qLo = sorted[2 * k];
    const uLo = (qLo - firstLo) >>> 0;
    const uHi = (sorted[2 * k + 1] - firstHi - (qLo < firstLo ? 1 : 0)) >>> 0;
    const qHighPart = shiftRight(uHi, uLo, l);
    // To just past zero bit number qHighPart: whole words by popcount, then a select in the last.
    for (let need = qHighPart - high; need > 0; ) {
      const off = pos & 31;
      const clear = ~frame[upperAt + (pos >>> 5)] >>> off;
      const c = popcount32(clear);
      if (c >= need) {
        pos += select32(clear, need - 1) + 1;
        break;
      }
      need -= c;
      pos += 32 - off;
    }
    high = qHighPart;
    // The keys whose high part is the query's: the one bits from `pos`, their low parts ascending.
    const qLow = lowBits(uLo, wLo);
    const qHigh = lowBits(uHi, wHi);
    for (let p = pos; ((frame[upperAt + (p >>> 5)] >>> (p & 31)) & 1) === 1; p++) {
      const i = p - high;
      const cHigh = get(frame, hiAt, i * wHi, wHi);
      const cLow = get(frame, loAt, i * wLo, wLo);
      if (cHigh === qHigh && cLow === qLow) {
        found[k] = 1;
        break;
      }
      if (!less(cHigh, cLow, qHigh, qLow)) break;
    }
  }
}

/** Per byte value, the positions of its set bits, 8 slots each. */
const SELECT8 = (() => {
  const table = new Uint8Array(256 * 8);
  for (let b = 0; b < 256; b++) for (let i = 0, k = 0; i < 8; i++) if (((b >> i) & 1) === 1) table[b * 8 + k++] = i;
  return table;
})();

/** The position of set bit number k (from 0, k < popcount) of x: without branches, which a random bit vector would mispredict. */
function select32(x: number, k: number): number {
  let c = popcount32(x & 0xffff);
  // 1 when k ≥ c: the bit is in the upper half.
  let up = ((c - k - 1) >> 31) & 1;
  k -= c & -up;
  let shift = up << 4;
  c = popcount32((x >>> shift) & 0xff);
  up = ((c - k - 1) >> 31) & 1;
  k -= c & -up;
  shift += up << 3;
  return shift + SELECT8[((x >>> shift) & 0xff) * 8 + k];
}

/** All keys of a frame, as sorted `lo, hi` pairs. */
export function decodeFrame(frame: Uint32Array): Uint32Array {
  const { n, l, firstLo, firstHi, wLo, wHi, loAt, hiAt, upperAt } = frameLayout(frame);
  const out = new Uint32Array(2 * n);
  for (let i = 0, pos = 0; i < n; pos++) {
    if (((frame[upperAt + (pos >>> 5)] >>> (pos & 31)) & 1) === 0) continue;
    const high = pos - i;
    // u = high << l | low, then the first key added back.
    const low = get(frame, loAt, i * wLo, wLo);
    const uLo = l >= 32 ? low : ((high << l) | low) >>> 0;
    const uHi = l >= 32 ? ((high << (l - 32)) | get(frame, hiAt, i * wHi, wHi)) >>> 0 : l === 0 ? 0 : high >>> (32 - l);
    const lo = (uLo + firstLo) >>> 0;
    out[2 * i] = lo;
    out[2 * i + 1] = (uHi + firstHi + (lo < uLo ? 1 : 0)) >>> 0;
    i++;
  }
  return out;
}
