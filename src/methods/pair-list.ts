import { NumberMap } from "../util/number-map.js";

/**
 * Document pairs found by a method, each with its similarity. Keys are a·N + b for
 * documents a < b of a corpus of N documents (as in pairs.tsv), exact while N² < 2^53.
 */
export class PairList {
  private readonly sims = new NumberMap(1024);

  constructor(readonly documents: number) {}

  get size(): number {
    return this.sims.size;
  }

  add(a: number, b: number, similarity: number): void {
    this.sims.set(a < b ? a * this.documents + b : b * this.documents + a, similarity);
  }

  similarity(a: number, b: number): number {
    const s = this.sims.get(a < b ? a * this.documents + b : b * this.documents + a);
    if (s === undefined) throw new Error(`no pair ${a}, ${b}`);
    return s;
  }

  /** Keys in corpus order (doc_a, then doc_b). */
  sortedKeys(): Float64Array {
    const keys = new Float64Array(this.sims.size);
    let k = 0;
    for (const [key] of this.sims.entries()) keys[k++] = key;
    return keys.sort();
  }
}
