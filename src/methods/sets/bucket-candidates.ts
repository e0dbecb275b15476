import { sortOrder } from "../../util/radix-order.js";
import { growableU32 } from "../../util/typed-arrays.js";

/**
 * Buckets of at most this many group leaders give every pair as a candidate; a larger bucket
 * (a block, band or paragraph shared by many distinct documents, e.g. thousands of near
 * copies of one page) gives each leader with the bucket's first leader and with its
 * NEIGHBOURS predecessors only: at most 1 + NEIGHBOURS candidates per leader instead of
 * m(m−1)/2. The predecessors keep families of near copies that interleave in one bucket
 * chained.
 */
export const ALL_PAIRS_BUCKET = 64;
export const NEIGHBOURS = 4;

/**
 * Candidate pairs of documents from buckets (documents sharing a key), each pair once:
 * collected flat, then sorted and deduplicated, so a pair sharing several buckets (blocks,
 * bands, elements) is verified once, whatever order the buckets came in.
 */
export class BucketCandidates {
  private readonly pairs = growableU32();

  /** `part` (`--partition-attr`): each document's partition; a bucket is then one bucket per partition of its members. */
  constructor(
    private readonly allPairsBucket = ALL_PAIRS_BUCKET,
    private readonly part?: Uint32Array,
  ) {}

  /** A bucket: members[from, to), in increasing corpus order. */
  addBucket(members: Uint32Array, from: number, to: number): void {
    const { part } = this;
    if (part === undefined) return this.addOne(members, from, to);
    const byPartition = new Map<number, number[]>();
    for (let k = from; k < to; k++) {
      const p = part[members[k]];
      const list = byPartition.get(p);
      if (list === undefined) byPartition.set(p, [members[k]]);
      else list.push(members[k]);
    }
    for (const list of byPartition.values()) if (list.length > 1) this.addOne(Uint32Array.from(list), 0, list.length);
  }

  private addOne(members: Uint32Array, from: number, to: number): void {
    if (to - from <= this.allPairsBucket) {
      for (let p = from; p < to; p++) for (let q = p + 1; q < to; q++) this.pairs.push2(members[p], members[q]);
      return;
    }
    for (let q = from + 1; q < to; q++) {
      this.pairs.push2(members[from], members[q]);
      for (let p = Math.max(from + 1, q - NEIGHBOURS); p < q; p++) this.pairs.push2(members[p], members[q]);
    }
  }

  /** The distinct pairs, flat as a, b with a < b, sorted by (a, b). */
  sorted(): Uint32Array {
    const flat = this.pairs.view();
    const n = flat.length / 2;
    const a = new Uint32Array(n);
    const b = new Uint32Array(n);
    for (let k = 0; k < n; k++) {
      a[k] = flat[2 * k];
      b[k] = flat[2 * k + 1];
    }
    const order = sortOrder(a, b, n);
    const out = growableU32();
    for (let k = 0; k < n; k++) {
      const i = order[k];
      if (k > 0 && a[i] === a[order[k - 1]] && b[i] === b[order[k - 1]]) continue;
      out.push2(a[i], b[i]);
    }
    return out.view();
  }
}
