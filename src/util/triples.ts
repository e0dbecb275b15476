import { growableU32, type GrowableArray } from "./typed-arrays.js";

/**
 * A growable Uint32Array of (i, j, value) triples: the pairs of the beam scan (value: the
 * distance) pushed one by one, or filled in bulk by the all-pairs kernels (`reserve`). Cheap to
 * post between threads: `toArray().buffer` is transferable.
 */
export class Triples {
  private readonly words: GrowableArray<Uint32Array>;

  constructor(initialTriples = 1024) {
    this.words = growableU32(3 * Math.max(1, initialTriples));
  }

  /** The backing array: triple k at [3k, 3k + 3) for 3k < `used`. */
  get data(): Uint32Array {
    return this.words.values;
  }

  /** Words in use (3 per triple); a kernel that filled reserved room sets it. */
  get used(): number {
    return this.words.length;
  }

  set used(words: number) {
    this.words.length = words;
  }

  /** Number of triples. */
  get length(): number {
    return this.used / 3;
  }

  push(i: number, j: number, value: number): void {
    const at = this.words.length;
    const data = this.words.reserve(3);
    data[at] = i;
    data[at + 1] = j;
    data[at + 2] = value;
    this.words.length = at + 3;
  }

  /** Makes room for `triples` more; returns the index where they are to be written. */
  reserve(triples: number): number {
    this.words.reserve(3 * triples);
    return this.words.length;
  }

  /** A trimmed copy: triple k is [3k] = i, [3k+1] = j, [3k+2] = value. */
  toArray(): Uint32Array {
    return this.data.slice(0, this.used);
  }
}
