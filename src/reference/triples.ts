/** A growable Uint32Array of (i, j, value) triples, filled in bulk by the all-pairs kernels. */
export class Triples {
  data: Uint32Array;
  used = 0;

  constructor(initialTriples = 1024) {
    this.data = new Uint32Array(3 * Math.max(1, initialTriples));
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

  /** A trimmed copy (transferable). */
  toArray(): Uint32Array {
    return this.data.slice(0, this.used);
  }
}
