import { NumberMap } from "../util/number-map.js";

/**
 * The signature pairs PLEB has found so far, each unordered pair once, with its Hamming
 * distance. Keyed by i·n + j (i < j < n store indices), exact while n² < 2^53.
 */
export class FoundPairs {
  private readonly map = new NumberMap(1 << 12);

  constructor(readonly n: number) {
    if (n * n >= 2 ** 53) throw new RangeError(`${n} distinct signatures are too many for pair keys`);
  }

  get size(): number {
    return this.map.size;
  }

  /** Adds (i, j, distance) triples; returns the pairs that were new. */
  addTriples(triples: Uint32Array): Uint32Array {
    const fresh: number[] = [];
    for (let k = 0; k < triples.length; k += 3) {
      const key = triples[k] * this.n + triples[k + 1];
      if (this.map.get(key) === undefined) {
        this.map.set(key, triples[k + 2]);
        fresh.push(triples[k], triples[k + 1], triples[k + 2]);
      }
    }
    return Uint32Array.from(fresh);
  }

  /** Hamming distance of the found pair (i, j), i < j, or undefined. */
  distance(i: number, j: number): number | undefined {
    return this.map.get(i * this.n + j);
  }

  /** All pairs as (i, j, distance), in no particular order. */
  *triples(): Generator<[number, number, number]> {
    for (const [key, distance] of this.map.entries()) {
      const i = Math.floor(key / this.n);
      yield [i, key - i * this.n, distance];
    }
  }
}
