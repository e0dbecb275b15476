/**
 * A growable Uint32Array of (i, j, value) triples: the pairs of the beam scan (value: the
 * distance) pushed one by one, or filled in bulk by the all-pairs kernels (`reserve`). Cheap to
 * post between threads: `toArray().buffer` is transferable.
 */
export class Triples {
  data: Uint32Array;
  used = 0;

  constructor(initialTriples = 1024) {
    this.data = new Uint32Array(3 * Math.max(1, initialTriples));
  }

  /** Number of triples. */
  get length(): number {
    return this.used / 3;
  }

  push(i: number, j: number, value: number): void {
    const at = this.reserve(1);
    this.data[at] = i;
    this.data[at + 1] = j;
    this.data[at + 2] = value;
    this.used = at + 3;
  }

  /** Makes room for `triples` more; returns the index where they are to be written. */
  reserve(triples: number): number {
    const need = this.used + 3 * triples;
    if (need > this.data.length) {
      const grown = new Uint32Array(Math.max(need, this.data.length * 2));
      grown.set(this.data.subarray(0, this.used));
      this.data = grown;
    }
    return this.used;
  }

  /** A trimmed copy: triple k is [3k] = i, [3k+1] = j, [3k+2] = value. */
  toArray(): Uint32Array {
    return this.data.slice(0, this.used);
  }
}
