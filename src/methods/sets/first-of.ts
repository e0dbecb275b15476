import { NO_DOC } from "../../clusters/duplicate-graph.js";
import { sortOrder } from "../../util/radix-order.js";

/**
 * `firstOf` of a DuplicateGraph (identity groups) from 64-bit keys of the documents that have
 * features: `members` (increasing corpus ordinals) with keys (hi[k], lo[k]). Documents are
 * sorted by key with a radix sort (no Map entry per document); within a run of equal keys,
 * `same(a, b)` separates features that only share the key, so a group holds identical
 * features whatever the key (a run of distinct features under one 64-bit key is compared
 * with each of its groups: quadratic only in key collisions). With `part` (`--partition-attr`:
 * each document's partition), a group holds documents of one partition only.
 */
export function firstOfByKeys(
  documents: number,
  members: Uint32Array,
  hi: Uint32Array,
  lo: Uint32Array,
  sameFeatures: (a: number, b: number) => boolean,
  part?: Uint32Array,
): Uint32Array {
  const same = part === undefined ? sameFeatures : (a: number, b: number) => part[a] === part[b] && sameFeatures(a, b);
  const firstOf = new Uint32Array(documents).fill(NO_DOC);
  const n = members.length;
  const order = sortOrder(hi, lo, n);
  const leaders: number[] = [];
  for (let from = 0; from < n; ) {
    let to = from + 1;
    while (to < n && hi[order[to]] === hi[order[from]] && lo[order[to]] === lo[order[from]]) to++;
    // The sort is stable: a run is in corpus order, so the first of a group is its leader.
    leaders.length = 0;
    for (let k = from; k < to; k++) {
      const doc = members[order[k]];
      const leader = leaders.find((l) => same(l, doc));
      if (leader === undefined) leaders.push(doc);
      firstOf[doc] = leader ?? doc;
    }
    from = to;
  }
  return firstOf;
}

/** The group leaders (documents d with firstOf[d] = d), in corpus order. */
export function leadersOf(firstOf: Uint32Array): Uint32Array {
  let n = 0;
  for (let d = 0; d < firstOf.length; d++) if (firstOf[d] === d) n++;
  const out = new Uint32Array(n);
  n = 0;
  for (let d = 0; d < firstOf.length; d++) if (firstOf[d] === d) out[n++] = d;
  return out;
}

/** Corpus ordinals of the documents with features (`empty[i]` = 0), in corpus order. */
export function featuredDocs(shards: readonly { firstDoc: number; empty: Uint8Array }[]): Uint32Array {
  const out = new Uint32Array(shards.reduce((n, s) => n + s.empty.length - s.empty.reduce((m, x) => m + x, 0), 0));
  let k = 0;
  for (const s of shards) for (let i = 0; i < s.empty.length; i++) if (!s.empty[i]) out[k++] = s.firstDoc + i;
  return out;
}

/** Documents of `shards` flagged `empty` (without any feature). */
export function emptyDocuments(shards: readonly { empty: Uint8Array }[]): number {
  return shards.reduce((n, s) => n + s.empty.reduce((m, e) => m + e, 0), 0);
}
