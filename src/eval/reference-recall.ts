import type { SignatureStore } from "../runs/signature-store.js";
import type { RecallTracker } from "../pleb/pleb-log.js";
import { VertdupError } from "../util/errors.js";
import type { DocIds } from "../output/doc-ids.js";
import type { PairTable } from "./pairs-file.js";

/**
 * Running recall of PLEB against reference pairs (the thesis's "found pairs %"): the share
 * of the reference's document pairs among the document pairs found so far. A signature
 * pair (i, j) found by PLEB stands for every document of i with every document of j;
 * documents sharing a signature are found before the first iteration.
 */
export class ReferenceRecall implements RecallTracker {
  private readonly keys = new Set<number>();
  private hits = 0;

  constructor(
    reference: PairTable,
    ids: DocIds,
    private readonly store: SignatureStore,
  ) {
    this.n = ids.length;
    for (const key of reference.similarity.keys()) {
      const [x, y] = key.split("\t");
      const a = ids.ordinalOf(x);
      const b = ids.ordinalOf(y);
      if (a === undefined || b === undefined) {
        throw new VertdupError(`${reference.path}: document ${a === undefined ? x : y} is not in the prepared corpus`);
      }
      this.keys.add(Math.min(a, b) * this.n + Math.max(a, b));
    }
  }

  private readonly n: number;

  private count(a: number, b: number): void {
    if (this.keys.has(Math.min(a, b) * this.n + Math.max(a, b))) this.hits++;
  }

  addIdentical(): void {
    const { offsets, docs } = this.store;
    for (let i = 0; i < this.store.count; i++) {
      for (let p = offsets[i]; p < offsets[i + 1]; p++) {
        for (let q = p + 1; q < offsets[i + 1]; q++) this.count(docs[p], docs[q]);
      }
    }
  }

  addSignaturePair(i: number, j: number): void {
    const { offsets, docs } = this.store;
    for (let p = offsets[i]; p < offsets[i + 1]; p++) {
      for (let q = offsets[j]; q < offsets[j + 1]; q++) this.count(docs[p], docs[q]);
    }
  }

  recall(): number {
    return this.keys.size === 0 ? 1 : this.hits / this.keys.size;
  }
}
