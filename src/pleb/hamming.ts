/**
 * Hamming distance kernels over a signature store: one Uint32Array with n signatures of W
 * words back to back (signature i at words [i·W, (i+1)·W)). The relative Hamming similarity of
 * two `bits`-bit signatures is 1 − d/bits.
 */

/**
 * Number of set bits of a 32-bit value (SWAR: 2-, 4-, 8-bit partial sums, then one multiply
 * adds the four byte counts into the top byte).
 */
export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/**
 * popcount32(x) + popcount32(y) with one multiply: the byte counts of x and y are summed
 * before it (each byte ≤ 16, no overflow). The hot loops' step of two words.
 */
export function popcount2(x: number, y: number): number {
  x -= (x >>> 1) & 0x55555555;
  y -= (y >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  y = (y & 0x33333333) + ((y >>> 2) & 0x33333333);
  return Math.imul(((x + (x >>> 4)) & 0x0f0f0f0f) + ((y + (y >>> 4)) & 0x0f0f0f0f), 0x01010101) >>> 24;
}

/** Hamming distance between signatures i and j of the store. */
export function hammingDistance(store: Uint32Array, i: number, j: number, W: number): number {
  let a = i * W;
  let b = j * W;
  const end = a + W;
  let d = 0;
  while (a < end) d += popcount32(store[a++] ^ store[b++]);
  return d;
}

/**
 * Hamming distance between signatures i and j if it is ≤ maxDistance; otherwise some value
 * > maxDistance (the partial count at which it stopped). This is PLEB's hot loop: almost all
 * beam neighbours are far apart (≈ bits/2), and the running count passes a small maxDistance
 * after a few words, so the check is made every two words (W is even for bits ≡ 0 mod 64).
 * Locals only, no allocation (popcount2 is small enough for V8 to inline).
 */
export function hammingWithin(
  store: Uint32Array,
  i: number,
  j: number,
  W: number,
  maxDistance: number,
): number {
  let a = i * W;
  let b = j * W;
  const end = a + W;
  let d = 0;
  while (a < end) {
    d += popcount2(store[a++] ^ store[b++], store[a++] ^ store[b++]);
    if (d > maxDistance) return d;
  }
  return d;
}

/**
 * The largest d with 1 − d/bits ≥ threshold, i.e. d = ⌊bits·(1 − threshold)⌋, clamped to
 * [0, bits]. The product is computed with a relative error ~1e-16, so a 1e-9 slack keeps exact
 * cases exact (bits 1000, threshold 0.95 → 50, not 49) without admitting the next integer.
 * Threshold 0.9 at 1024 bits → ⌊102.4⌋ = 102.
 */
export function maxDistanceFor(bits: number, threshold: number): number {
  if (!(threshold >= 0 && threshold <= 1)) {
    throw new RangeError(`threshold must be in [0, 1], got ${threshold}`);
  }
  return Math.min(bits, Math.max(0, Math.floor(bits * (1 - threshold) + 1e-9)));
}
