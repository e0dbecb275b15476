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

/** mul^n mod 2^32: the weight of the token leaving a polynomial lane's window of n. */
export function lanePower(mul: number, n: number): number {
  let pow = 1;
  for (let i = 0; i < n; i++) pow = Math.imul(pow, mul);
  return pow;
}

/**
 * Advances a polynomial lane h = Σ token·mul^(n−1−j) mod 2^32 by one token: `entering` comes
 * in, `leaving` (the token n back, weighing `pow` = lanePower(mul, n)) goes. The rolling step
 * of the shingle hashes below and of the paragraph pass's n-gram keys (ngram-hash.ts).
 */
export function roll(h: number, mul: number, pow: number, entering: number, leaving: number): number {
  return (Math.imul(h, mul) + entering - Math.imul(leaving, pow)) | 0;
}

/**
 * 53-bit hashes of word shingles (windows of consecutive token hashes) for minhash, rolling
 * so that a window costs O(1) whatever its length. Each lane is a polynomial of one 32-bit
 * word per token, mod 2^32:
 *
 *   A = Σ_j lo_j · P^(L−1−j),   B = Σ_j (hi_j ⊕ rotl(lo_j, 16)) · Q^(L−1−j)   (WINDOW_P, WINDOW_Q)
 *
 * (lo, hi: low 32 and high 21 bits of a token hash; L the window length), then both lanes
 * go through fmix32 with L, so that the result is no longer linear in the tokens (MinHash
 * permutes it with a linear map). Windows differing in any token differ in A with
 * probability 1 − 2^−32 for random token hashes, and B adds 21 more bits.
 */

const WINDOW_P = 0x01000193;
const WINDOW_Q = 0x9e3779b1;

const hiWord = (t: number) => (Math.floor(t / TWO_32) ^ ((t << 16) | (t >>> 16))) | 0;

function finishWindow(a: number, b: number, length: number): number {
  return (fmix32(b ^ length) & 0x1f_ffff) * TWO_32 + fmix32(a ^ length);
}

/** The hash of the window tokens[from, from + length) (the direct form, the reference). */
export function windowHash(tokens: ArrayLike<number>, from: number, length: number): number {
  let a = 0;
  let b = 0;
  for (let j = from; j < from + length; j++) {
    a = (Math.imul(a, WINDOW_P) + (tokens[j] | 0)) | 0;
    b = (Math.imul(b, WINDOW_Q) + hiWord(tokens[j])) | 0;
  }
  return finishWindow(a, b, length);
}

/**
 * Writes the hash of every window of k of tokens[0, m) at out[at…] (one window of all of
 * them when m < k, none when m = 0) and returns how many.
 */
export function windowHashes(tokens: ArrayLike<number>, m: number, k: number, out: Float64Array, at: number): number {
  if (m === 0) return 0;
  if (m < k) {
    out[at] = windowHash(tokens, 0, m);
    return 1;
  }
  const pk = lanePower(WINDOW_P, k);
  const qk = lanePower(WINDOW_Q, k);
  let a = 0;
  let b = 0;
  for (let j = 0; j < m; j++) {
    const t = tokens[j];
    // Before the window is full nothing leaves it (a leaving 0 weighs nothing).
    const old = j >= k ? tokens[j - k] : 0;
    a = roll(a, WINDOW_P, pk, t | 0, old | 0);
    b = roll(b, WINDOW_Q, qk, hiWord(t), hiWord(old));
    if (j >= k - 1) out[at + j - k + 1] = finishWindow(a, b, k);
  }
  return m - k + 1;
}
