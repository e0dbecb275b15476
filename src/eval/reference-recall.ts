import type { SignatureStore } from "../runs/signature-store.js";
import type { RecallTracker } from "../pleb/pleb-log.js";
import type { DocIds } from "../output/doc-ids.js";
import { signatureOfDocument } from "../output/pairs.js";
import { VertdupError } from "../core/errors.js";
import type { PairTable } from "./pairs-file.js";

const NONE = 0xffffffff;

/**
 * Running recall of PLEB against reference pairs (the thesis's "found pairs %"): the share
 * of the reference's document pairs among the document pairs found so far. A signature
 * pair (i, j) found by PLEB stands for every document of i with every document of j;
 * documents sharing a signature are found before the first iteration. Each reference pair
 * is reduced to its pair of signatures once (sorted keys i·S + j with their counts), so
 * nothing is expanded: linear in reference pairs and found signature pairs.
 */
export class ReferenceRecall implements RecallTracker {
  private readonly keys: Float64Array;
  private readonly counts: Uint32Array;
  private readonly total: number;
  private readonly signatures: number;
  private hits = 0;

  constructor(reference: PairTable, ids: DocIds, store: SignatureStore) {
    const sigOf = signatureOfDocument(store, ids.length);
    // Corpus ordinal of each of the reference's ids (the same table when it is the corpus's).
    const ordinal = new Int32Array(reference.ids === ids ? 0 : reference.ids.length).fill(-1);
    const corpusOrdinal = (x: number) => {
      if (reference.ids === ids) return x;
      if (ordinal[x] < 0) {
        const k = ids.ordinalOf(reference.ids.get(x));
        if (k === undefined) throw new VertdupError(`${reference.path}: document ${reference.ids.get(x)} is not in the prepared corpus`);
        ordinal[x] = k;
      }
      return ordinal[x];
    };
    const s = store.count;
    this.signatures = s;
    const keys = new Float64Array(reference.a.length);
    for (let k = 0; k < keys.length; k++) {
      const i = sigOf[corpusOrdinal(reference.a[k])];
      const j = sigOf[corpusOrdinal(reference.b[k])];
      keys[k] = i === NONE || j === NONE ? -1 : Math.min(i, j) * s + Math.max(i, j);
    }
    keys.sort();
    let distinct = 0;
    const counts = new Uint32Array(keys.length);
    for (let k = 0; k < keys.length; k++) {
      if (keys[k] < 0) continue;
      if (distinct > 0 && keys[distinct - 1] === keys[k]) counts[distinct - 1]++;
      else {
        keys[distinct] = keys[k];
        counts[distinct++] = 1;
      }
    }
    this.keys = keys.subarray(0, distinct);
    this.counts = counts.subarray(0, distinct);
    this.total = reference.a.length;
  }

  addIdentical(): void {
    const s = this.signatures;
    for (let k = 0; k < this.keys.length; k++) {
      const i = Math.floor(this.keys[k] / s);
      if (this.keys[k] - i * s === i) this.hits += this.counts[k];
    }
  }

  addSignaturePair(i: number, j: number): void {
    const key = Math.min(i, j) * this.signatures + Math.max(i, j);
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    if (lo < this.keys.length && this.keys[lo] === key) this.hits += this.counts[lo];
  }

  recall(): number {
    return this.total === 0 ? 1 : this.hits / this.total;
  }
}
