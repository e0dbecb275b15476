/**
 * LSD radix sort of 64-bit keys given as two uint32 arrays (PLEB's sort keys, term hashes
 * split into their high and low words).
 */

/**
 * Digits of the LSD radix sort, least significant first: 11, 11 and 10 bits of lo, then of
 * hi. 2^11 counters (8 KB) stay in L1, where 2^16 would not; six passes, each skipped when all
 * keys share that digit.
 */
const DIGITS: ReadonlyArray<{ ofHi: boolean; shift: number; mask: number }> = [
  { ofHi: false, shift: 0, mask: 0x7ff },
  { ofHi: false, shift: 11, mask: 0x7ff },
  { ofHi: false, shift: 22, mask: 0x3ff },
  { ofHi: true, shift: 0, mask: 0x7ff },
  { ofHi: true, shift: 11, mask: 0x7ff },
  { ofHi: true, shift: 22, mask: 0x3ff },
];
const RADIX = 0x800;

/**
 * Indices 0 … n−1 sorted by (hi[i], lo[i], i) ascending, unsigned. LSD radix sort: each pass
 * is a stable counting sort by one digit, starting from the identity, so equal keys keep
 * index order. O(n) time (one pass to count all digits, ≤ 6 scatter passes), 2n extra words.
 */
export function sortOrder(hi: Uint32Array, lo: Uint32Array, n: number): Uint32Array {
  const counts = new Uint32Array(DIGITS.length * RADIX);
  for (let i = 0; i < n; i++) {
    const h = hi[i];
    const l = lo[i];
    counts[l & 0x7ff]++;
    counts[RADIX + ((l >>> 11) & 0x7ff)]++;
    counts[2 * RADIX + (l >>> 22)]++;
    counts[3 * RADIX + (h & 0x7ff)]++;
    counts[4 * RADIX + ((h >>> 11) & 0x7ff)]++;
    counts[5 * RADIX + (h >>> 22)]++;
  }
  let src = new Uint32Array(n);
  let dst = new Uint32Array(n);
  for (let i = 0; i < n; i++) src[i] = i;
  for (let pass = 0; pass < DIGITS.length; pass++) {
    const { ofHi, shift, mask } = DIGITS[pass];
    const base = pass * RADIX;
    // Turn counts into starting offsets; a digit holding all n keys leaves the order as is.
    let sum = 0;
    let trivial = false;
    for (let r = 0; r <= mask; r++) {
      const c = counts[base + r];
      if (c === n) trivial = true;
      counts[base + r] = sum;
      sum += c;
    }
    if (trivial) continue;
    const keys = ofHi ? hi : lo;
    for (let k = 0; k < n; k++) {
      const i = src[k];
      dst[counts[base + ((keys[i] >>> shift) & mask)]++] = i;
    }
    const t = src;
    src = dst;
    dst = t;
  }
  return src;
}

/** Indices 0 … n−1 sorted by (keys[i], i): one 32-bit word per key (the all-zero high words' passes are skipped). */
export function wordOrder(keys: Uint32Array, n: number): Uint32Array {
  return sortOrder(new Uint32Array(n), keys, n);
}

/** Indices 0 … n−1 sorted by (values[i], i) for integers in [0, 2^53), e.g. term hashes. */
export function integerOrder(values: Float64Array, n: number): Uint32Array {
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    hi[i] = Math.floor(values[i] / 0x1_0000_0000);
    lo[i] = values[i] >>> 0;
  }
  return sortOrder(hi, lo, n);
}
