/**
 * 64-bit n-gram keys as two 32-bit lanes, computed from bytes without decoding strings.
 *
 * A token is its word column (the bytes before the first tab), hashed exactly, case and all,
 * as onion hashes its tokens. An n-gram key is a polynomial rolling hash of the n token
 * hashes in each lane (one multiply-add per token and lane, however large n is), finalised
 * by a bijective mix so that the high bits spread keys evenly over buckets. Two distinct
 * n-grams collide with probability about 2^-64; with 10^9 distinct n-grams ≈ 0.03 expected
 * colliding pairs.
 */

import { fmix32, hashString, lanePower, mix53to32, roll } from "../features/hash.js";
import { InputError } from "../core/errors.js";
import { partitionValue } from "../corpus/vertical.js";
import { LineProblem } from "./line-problem.js";
import { normalizeUnicode } from "../features/normalize.js";
import type { Normalization } from "../core/options.js";

const MUL_A = 0x9e3779b1;
const MUL_B = 0x85ebca77;

/** Powers of the lane multipliers, for removing the token that leaves the window. */
export interface RollingHash {
  n: number;
  powA: number;
  powB: number;
}

export function rollingHash(n: number): RollingHash {
  return { n, powA: lanePower(MUL_A, n), powB: lanePower(MUL_B, n) };
}

/**
 * Hashes a token's word column, the bytes from `start` up to the first tab or newline (or
 * `end`), into two independent 32-bit lanes written to `out[0]` and `out[1]`; returns where
 * it stopped, so the caller reads each token byte once.
 */
export function hashWord(bytes: Uint8Array, start: number, end: number, out: Uint32Array): number {
  let a = 0x811c9dc5;
  let b = 0x2545f491;
  let i = start;
  for (; i < end; i++) {
    const c = bytes[i];
    if (c === 0x09 || c === 0x0a) break;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  out[0] = fmix32(a ^ (i - start));
  out[1] = fmix32(b + Math.imul(i - start, 0x27d4eb2f));
  return i;
}

/**
 * `hashWord` of the token in Unicode form `form` (features/normalize.ts): of its bytes
 * where the form leaves it as it is (ASCII, and 2-byte characters `stable` keeps), else of
 * the UTF-8 bytes of its normal form. `stable` is twoByteTable of the form without
 * lowercasing, which maps a code point that the form leaves alone to itself.
 */
export function hashNormalWord(bytes: Uint8Array, start: number, end: number, out: Uint32Array, form: Normalization, stable: Uint16Array): number {
  let i = start;
  let plain = true;
  for (; i < end && bytes[i] !== 0x09 && bytes[i] !== 0x0a; i++) {
    const c = bytes[i];
    if (c < 0x80) continue;
    const cp = ((c & 0x1f) << 6) | (bytes[i + 1] & 0x3f);
    if (c >= 0xe0 || stable[cp] !== cp) {
      plain = false;
      break;
    }
    i++;
  }
  if (plain) return hashWord(bytes, start, end, out);
  while (i < end && bytes[i] !== 0x09 && bytes[i] !== 0x0a) i++;
  const word = Buffer.from(bytes.buffer, bytes.byteOffset + start, i - start).toString("utf8");
  const normal = normalizeUnicode(word, form);
  if (normal === word) return hashWord(bytes, start, end, out);
  const encoded = Buffer.from(normal, "utf8");
  hashWord(encoded, 0, encoded.length, out);
  return i;
}

/** Advances a lane of the rolling hash: the new token enters, the one n back leaves. */
export { roll };

export const LANE_MUL_A = MUL_A;
export const LANE_MUL_B = MUL_B;

/** The key's low lane (also its probe position in a hash table). */
export function keyLo(a: number): number {
  return fmix32(a);
}

/** The key's high lane; its top bits choose the bucket. (a, b) ↦ (lo, hi) is a bijection. */
export function keyHi(lo: number, b: number): number {
  return fmix32(b ^ lo);
}

/**
 * The two lanes a document's n-gram keys are mixed with under `--partition-attr`: of the
 * attribute's value on its `<doc>` line `tagLine` (the empty value without it), into `out`.
 * Keys of one n-gram in two partitions then differ as two n-grams do.
 */
export function partitionLanes(tagLine: string, attr: string, lineNo: number, out: Int32Array): void {
  const h = hashString(docPartition(tagLine, attr, lineNo));
  out[0] = mix53to32(h, 1);
  out[1] = mix53to32(h, 2);
}

/** The `--partition-attr` value of the `<doc>` line `tagLine`; a malformed value is a LineProblem at `lineNo`. */
export function docPartition(tagLine: string, attr: string, lineNo: number): string {
  try {
    return partitionValue(tagLine, attr, { file: "", line: lineNo });
  } catch (err) {
    if (err instanceof InputError) throw new LineProblem(lineNo, err.problem);
    throw err;
  }
}
