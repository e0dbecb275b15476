import { NumberMap } from "../util/number-map.js";
import type { PairColumns } from "./spanning-forest.js";

/** Distances and iterations share one float64: iteration · 2^17 + distance (bits ≤ 65536). */
const ITERATION_UNIT = 1 << 17;

/** A found signature pair: store indices i < j, Hamming distance, first iteration (1-based). */
export type FoundPair = [i: number, j: number, distance: number, iteration: number];

/**
 * The signature pairs PLEB has found, each unordered pair once, with its Hamming distance
 * and the first iteration that found it. Keyed by i·n + j (i < j < n store indices), exact
 * while n² < 2^53.
 *
 * An iteration's pairs depend only on the store and that iteration's permutation, so the
 * pairs of iteration groups run apart (resumed runs, Slurm array tasks) merge into exactly
 * the result of one sequential run: the union, each pair at its smallest iteration.
 */
export class FoundPairs {
  private readonly map = new NumberMap(1 << 12);

  constructor(readonly n: number) {
    if (n * n >= 2 ** 53) throw new RangeError(`${n} distinct signatures are too many for pair keys`);
  }

  get size(): number {
    return this.map.size;
  }

  /** Records a pair found at `iteration`, keeping the earliest iteration of a known pair. */
  add(i: number, j: number, distance: number, iteration: number): void {
    const key = i * this.n + j;
    const known = this.map.get(key);
    if (known === undefined || known >= iteration * ITERATION_UNIT + ITERATION_UNIT) {
      this.map.set(key, iteration * ITERATION_UNIT + distance);
    }
  }

  /** Adds the (i, j, distance) triples of a beam scan at `iteration`. */
  addTriples(triples: Uint32Array, iteration: number): void {
    for (let k = 0; k < triples.length; k += 3) this.add(triples[k], triples[k + 1], triples[k + 2], iteration);
  }

  /** Hamming distance of the found pair (i, j), i < j, or undefined. */
  distance(i: number, j: number): number | undefined {
    const v = this.map.get(i * this.n + j);
    return v === undefined ? undefined : v % ITERATION_UNIT;
  }

  /** All pairs, in no particular order. */
  *pairs(): Generator<FoundPair> {
    for (const [key, v] of this.map.entries()) {
      const i = Math.floor(key / this.n);
      yield [i, key - i * this.n, v % ITERATION_UNIT, Math.floor(v / ITERATION_UNIT)];
    }
  }

  /** The pairs as parallel arrays, for a run file. */
  toColumns(): PairColumns {
    const n = this.size;
    const out = { i: new Uint32Array(n), j: new Uint32Array(n), distance: new Uint32Array(n), iteration: new Uint32Array(n) };
    let k = 0;
    for (const [i, j, d, it] of this.pairs()) {
      out.i[k] = i;
      out.j[k] = j;
      out.distance[k] = d;
      out.iteration[k++] = it;
    }
    return out;
  }

  addColumns(c: PairColumns): void {
    for (let k = 0; k < c.i.length; k++) this.add(c.i[k], c.j[k], c.distance[k], c.iteration[k]);
  }
}
