import { fmix32 } from "../features/hash.js";

/**
 * 53-bit hashes of word shingles (windows of consecutive token hashes) for minhash, rolling
 * so that a window costs O(1) whatever its length. Each lane is a polynomial of one 32-bit
 * word per token, mod 2^32:
 *
 *   A = Σ_j lo_j · P^(L−1−j),   B = Σ_j (hi_j ⊕ rotl(lo_j, 16)) · Q^(L−1−j)
 *
 * (lo, hi: low 32 and high 21 bits of a token hash; L the window length), then both lanes
 * go through fmix32 with L, so that the result is no longer linear in the tokens (MinHash
 * permutes it with a linear map). Windows differing in any token differ in A with
 * probability 1 − 2^−32 for random token hashes, and B adds 21 more bits.
 */

const P = 0x01000193;
const Q = 0x9e3779b1;
const TWO_32 = 0x1_0000_0000;

const hiWord = (t: number) => (Math.floor(t / TWO_32) ^ ((t << 16) | (t >>> 16))) | 0;

function finish(a: number, b: number, length: number): number {
  return (fmix32(b ^ length) & 0x1f_ffff) * TWO_32 + fmix32(a ^ length);
}

/** The hash of the window tokens[from, from + length) (the direct form, the reference). */
export function windowHash(tokens: ArrayLike<number>, from: number, length: number): number {
  let a = 0;
  let b = 0;
  for (let j = from; j < from + length; j++) {
    a = (Math.imul(a, P) + (tokens[j] | 0)) | 0;
    b = (Math.imul(b, Q) + hiWord(tokens[j])) | 0;
  }
  return finish(a, b, length);
}

/** P^k and Q^k mod 2^32: what the token leaving a window of k weighs. */
function powers(k: number): { pk: number; qk: number } {
  let pk = 1;
  let qk = 1;
  for (let i = 0; i < k; i++) {
    pk = Math.imul(pk, P);
    qk = Math.imul(qk, Q);
  }
  return { pk, qk };
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
  const { pk, qk } = powers(k);
  let a = 0;
  let b = 0;
  for (let j = 0; j < m; j++) {
    const t = tokens[j];
    a = (Math.imul(a, P) + (t | 0)) | 0;
    b = (Math.imul(b, Q) + hiWord(t)) | 0;
    if (j >= k) {
      const old = tokens[j - k];
      a = (a - Math.imul(old | 0, pk)) | 0;
      b = (b - Math.imul(hiWord(old), qk)) | 0;
    }
    if (j >= k - 1) out[at + j - k + 1] = finish(a, b, k);
  }
  return m - k + 1;
}
