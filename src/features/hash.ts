/**
 * 53-bit string and sequence hashes, exact as JavaScript numbers.
 *
 * Terms are identified by these hashes rather than by strings (ARCHITECTURE.md: shards on
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

/** Hash of a string's UTF-16 code units. */
export function hashString(s: string): number {
  let a = 0x9747b28c;
  let b = 0x2545f491;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    a = mixLane(a, c, 0xcc9e2d51, 0x1b873593);
    b = mixLane(b, c, 0x85ebca77, 0xc2b2ae3d);
  }
  return join(fmix32(b ^ n), fmix32(a ^ n));
}

/** `hashString` of the string made of the first `length` code units of `units`. */
export function hashCodeUnits(units: Uint16Array, length: number): number {
  let a = 0x9747b28c;
  let b = 0x2545f491;
  for (let i = 0; i < length; i++) {
    const c = units[i];
    a = mixLane(a, c, 0xcc9e2d51, 0x1b873593);
    b = mixLane(b, c, 0x85ebca77, 0xc2b2ae3d);
  }
  return join(fmix32(b ^ length), fmix32(a ^ length));
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
