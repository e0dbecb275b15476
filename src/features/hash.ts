/**
 * 53-bit string and sequence hashes, exact as JavaScript numbers.
 *
 * Terms are identified by these hashes rather than by strings (docs/ARCHITECTURE.md: shards on
 * different threads or machines agree on a term without a shared string table). Two
 * independent 32-bit MurmurHash3-style lanes give 53 useful bits: with 10^8 distinct terms
 * the expected number of colliding pairs is n²/2^54 ≈ 0.0006.
 */

const TWO_32 = 0x1_0000_0000;
const LOW21 = 0x1f_ffff;

/** MurmurHash3's 32-bit finaliser: a bijective mix in which every input bit moves every output bit. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function mixLane(h: number, k: number, c1: number, c2: number): number {
  k = Math.imul(k, c1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, c2);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** Combines two 32-bit lanes into one non-negative safe integer below 2^53. */
function join(hi: number, lo: number): number {
  return (hi & LOW21) * TWO_32 + (lo >>> 0);
}

/** Seeds of the two lanes of a string hash. */
export const STRING_SEED_A = 0x9747b28c;
export const STRING_SEED_B = 0x2545f491;

/** One code unit into lane A / lane B of a string hash. */
export const mixA = (h: number, c: number) => mixLane(h, c, 0xcc9e2d51, 0x1b873593);
export const mixB = (h: number, c: number) => mixLane(h, c, 0x85ebca77, 0xc2b2ae3d);

/** The hash of a string of `length` code units from its two lanes. */
export function finishString(a: number, b: number, length: number): number {
  return join(fmix32(b ^ length), fmix32(a ^ length));
}

/** Hash of a string's UTF-16 code units. */
export function hashString(s: string): number {
  let a = STRING_SEED_A;
  let b = STRING_SEED_B;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    a = mixA(a, c);
    b = mixB(b, c);
  }
  return finishString(a, b, n);
}

/** Hash of a sequence of 53-bit hashes (a shingle of k token hashes). */
export function hashSequence(values: ArrayLike<number>, start: number, count: number): number {
  let a = 0x3c6ef372;
  let b = 0x510e527f;
  for (let i = start; i < start + count; i++) {
    const v = values[i];
    const lo = v >>> 0;
    const hi = Math.floor(v / TWO_32);
    a = mixLane(mixLane(a, lo, 0xcc9e2d51, 0x1b873593), hi, 0xcc9e2d51, 0x1b873593);
    b = mixLane(mixLane(b, lo, 0x85ebca77, 0xc2b2ae3d), hi, 0x85ebca77, 0xc2b2ae3d);
  }
  return join(fmix32(b ^ count), fmix32(a ^ count));
}

/** 32-bit mix of a 53-bit hash and a salt: seeds per-term random streams. */
export function mix53to32(v: number, salt: number): number {
  const lo = v >>> 0;
  const hi = Math.floor(v / TWO_32);
  return fmix32(mixLane(mixLane(salt | 0, lo, 0xcc9e2d51, 0x1b873593), hi, 0xcc9e2d51, 0x1b873593));
}
