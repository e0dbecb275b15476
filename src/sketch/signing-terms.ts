import type { NumberMap } from "../util/number-map.js";
import type { VectorCache } from "./random-vectors.js";
import { fixedPointFactor } from "./signature.js";

/** What a worker needs to wrap the same table (structured clone shares, never copies, the buffers). */
export interface SigningTermsParts {
  /** 16 bytes per entry: term + 1 (float64, 0: empty), cache slot (int32), factor or rank (int32). */
  entries: SharedArrayBuffer;
  /** Real weight factors by rank (float32 vectors), else empty. */
  factors: Float64Array;
  /** The weight factor of a term not in the table (df = 1), as `factor` gives it. */
  onceFactor: number;
  /** signature.ts factorScale: > 0, integer factors stored in the entries; 0, real factors by rank. */
  scale: number;
}

/**
 * The sign pass's term table: term → (cache slot, weight factor), both in the term's own
 * 16-byte entry, so a lookup reads one cache line. Looked up per (document, term) pair, the
 * vocabulary's NumberMap (keys and values in two arrays) and the factors by rank took three
 * cache misses, two of them dependent: 0.33–0.43 s CPU per 3.65 M lookups of gen-100000 against
 * 0.13–0.19 s for this layout. Integer factors (int8 vectors, signature.ts fixedPointFactor)
 * are stored as such; real ones (float32 vectors) stay float64 by rank. Open addressing, load at
 * most 1/2, the key mixed as NumberMap mixes it.
 */
export class SigningTerms {
  private readonly keys: Float64Array;
  private readonly ints: Int32Array;
  private readonly mask: number;
  private readonly factors: Float64Array;
  private readonly integer: boolean;
  /** The weight factor of a term not in the table. */
  readonly onceFactor: number;

  private constructor(private readonly parts: SigningTermsParts) {
    this.keys = new Float64Array(parts.entries);
    this.ints = new Int32Array(parts.entries);
    this.mask = this.keys.length / 2 - 1;
    this.factors = parts.factors;
    this.integer = parts.scale > 0;
    this.onceFactor = this.integer ? fixedPointFactor(parts.onceFactor, parts.scale) : parts.onceFactor;
  }

  /**
   * The table of the vocabulary's `ranks` and `factors` (by rank; `onceFactor` for the terms not
   * in it) at `scale`, with a term's slot its rank when the cache holds its vector, filled.
   */
  static build(ranks: NumberMap, factors: Float64Array, onceFactor: number, scale: number, cache: VectorCache): SigningTerms {
    let size = 16;
    while (size < 2 * ranks.size) size *= 2;
    const entries = new SharedArrayBuffer(16 * size);
    const integer = scale > 0;
    const table = new SigningTerms({ entries, factors: integer ? new Float64Array(0) : factors, onceFactor, scale });
    for (const [term, rank] of ranks.entries()) {
      const e = table.probe(term);
      table.keys[2 * e] = term + 1;
      table.ints[4 * e + 2] = cache.isFilled(rank) ? rank : -1;
      const factor = integer ? fixedPointFactor(factors[rank], scale) : rank;
      if (factor > 0x7fff_ffff) throw new RangeError(`weight factor ${factors[rank]} of term ${term} beyond int32 at scale ${scale}`);
      table.ints[4 * e + 3] = factor;
    }
    return table;
  }

  static fromShared(parts: SigningTermsParts): SigningTerms {
    return new SigningTerms(parts);
  }

  toShared(): SigningTermsParts {
    return this.parts;
  }

  /** The entry of `term`, or the empty one where it would go. */
  private probe(term: number): number {
    const keys = this.keys;
    const stored = term + 1;
    let e = ((term >>> 0) ^ Math.imul(Math.floor(term / 0x1_0000_0000), 0x9e3779b1)) & this.mask;
    for (;;) {
      const k = keys[2 * e];
      if (k === stored || k === 0) return e;
      e = (e + 1) & this.mask;
    }
  }

  /** The entry of `term`, −1 if it is not in the table. */
  find(term: number): number {
    const e = this.probe(term);
    return this.keys[2 * e] === 0 ? -1 : e;
  }

  /** The cache slot of entry `e` (−1: not cached, computed afresh). */
  slot(e: number): number {
    return this.ints[4 * e + 2];
  }

  /** The weight factor of entry `e`. */
  factor(e: number): number {
    return this.integer ? this.ints[4 * e + 3] : this.factors[this.ints[4 * e + 3]];
  }
}
