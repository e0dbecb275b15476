/**
 * The cumulative permutation of bit positions used by PLEB.
 *
 * The thesis moves bits: after each iteration it applies `shift_count` random transpositions
 * (swaps of two bit positions) to every signature, so the next lexicographic sort brings other
 * neighbours together. Here the signatures stay put and only the permutation changes: position
 * k of the permuted signature reads original bit positions[k]. Swapping permuted positions k1
 * and k2 is swapping positions[k1] and positions[k2] — O(1) per transposition instead of
 * O(n) per transposition.
 *
 * The transpositions come from one seeded stream, so the permutation after t transpositions is
 * a function of (bits, seed, t) alone: a task that runs iterations [a, b) reaches the state of
 * iteration a by replaying a·shiftCount transpositions (microseconds), with no state to ship.
 */

import { Sfc32 } from "../sketch/random-vectors.js";

/** Stream id separating the permutation's generator from term vectors of the same seed. */
const PERMUTATION_STREAM = 0x9e37_79b9_7f4a;

export class BitPermutation {
  readonly bits: number;
  readonly seed: number;
  /** positions[k] = the original bit read at permuted position k (a bijection of [0, bits)). */
  readonly positions: Uint16Array;
  private readonly random: Sfc32;
  private applied = 0;

  /** The identity permutation of `bits` positions (2 ≤ bits ≤ 65536) with its seeded stream. */
  constructor(bits: number, seed: number) {
    if (!Number.isInteger(bits) || bits < 2 || bits > 0x10000) {
      throw new RangeError(`bit count must be an integer in [2, 65536], got ${bits}`);
    }
    if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`invalid seed ${seed}`);
    this.bits = bits;
    this.seed = seed;
    this.positions = new Uint16Array(bits);
    for (let k = 0; k < bits; k++) this.positions[k] = k;
    this.random = new Sfc32(seed, PERMUTATION_STREAM);
  }

  /**
   * The permutation in force during PLEB iteration `iteration` (0-based) when every
   * iteration ends with shift(shiftCount): the identity followed by iteration·shiftCount
   * transpositions.
   */
  static atIteration(bits: number, seed: number, shiftCount: number, iteration: number): BitPermutation {
    const perm = new BitPermutation(bits, seed);
    perm.shift(shiftCount * iteration);
    return perm;
  }

  /** Transpositions applied since the identity. */
  get transpositions(): number {
    return this.applied;
  }

  /**
   * Applies `count` random transpositions: each picks a uniform pair of distinct permuted
   * positions (k1 uniform, k2 uniform among the others) and swaps what they read.
   */
  shift(count: number): void {
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`invalid shift count ${count}`);
    const p = this.positions;
    const n = this.bits;
    for (let c = 0; c < count; c++) {
      const k1 = this.random.nextBelow(n);
      let k2 = this.random.nextBelow(n - 1);
      if (k2 >= k1) k2++;
      const t = p[k1];
      p[k1] = p[k2];
      p[k2] = t;
    }
    this.applied += count;
  }
}
