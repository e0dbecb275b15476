import type { KeepPolicy } from "../methods/method-options.js";
import { preferred } from "./graph-clusters.js";
import { UnionFind } from "./union-find.js";

/** One document that has at least one pair. */
export interface ClusterMember {
  /** Corpus ordinal (0-based). */
  doc: number;
  /** 1-based, numbered in the corpus order of the clusters' first documents. */
  cluster: number;
  /** Ordinal of the cluster's representative (the document kept). */
  representative: number;
  /**
   * For a non-representative: its similarity to the representative when that pair was
   * found, otherwise the highest similarity of its pairs (it joined through another member).
   */
  similarity: number;
}

/**
 * Legacy, quadratic (Map/Set per document): kept only while a method still writes pair keys;
 * GraphClusters (graph-clusters.ts) replaces it.
 *
 * Connected components of the pairs (keys a·N + b, sorted, as pairs.tsv) and a
 * representative per component: the document with most tokens (ties: earlier in the
 * corpus) for `longest`, the earliest for `first`. Members come in corpus order.
 */
export function assignClusters(
  keys: Float64Array,
  documents: number,
  similarity: (a: number, b: number) => number,
  tokens: ArrayLike<number>,
  keep: KeepPolicy,
): ClusterMember[] {
  const pairAt = (k: number): [number, number] => {
    const a = Math.floor(keys[k] / documents);
    return [a, keys[k] - a * documents];
  };
  // Dense indices of the documents involved, in corpus order.
  const involved = new Set<number>();
  for (let k = 0; k < keys.length; k++) for (const d of pairAt(k)) involved.add(d);
  const docs = Uint32Array.from(involved).sort();
  const dense = new Map<number, number>();
  docs.forEach((d, i) => dense.set(d, i));
  const sets = new UnionFind(docs.length);
  for (let k = 0; k < keys.length; k++) {
    const [a, b] = pairAt(k);
    sets.union(dense.get(a) as number, dense.get(b) as number);
  }
  const rep = new Map<number, number>();
  const clusterOf = new Map<number, number>();
  for (const d of docs) {
    const root = sets.find(dense.get(d) as number);
    const current = rep.get(root);
    if (current === undefined) clusterOf.set(root, clusterOf.size + 1);
    if (current === undefined || preferred(d, current, tokens, keep)) rep.set(root, d);
  }
  const best = new Float64Array(docs.length).fill(-1);
  const toRep = new Float64Array(docs.length).fill(-1);
  for (let k = 0; k < keys.length; k++) {
    const [a, b] = pairAt(k);
    const s = similarity(a, b);
    for (const [x, y] of [[a, b], [b, a]]) {
      const i = dense.get(x) as number;
      if (s > best[i]) best[i] = s;
      if (rep.get(sets.find(i)) === y) toRep[i] = s;
    }
  }
  return Array.from(docs, (d, i) => {
    const root = sets.find(i);
    return { doc: d, cluster: clusterOf.get(root) as number, representative: rep.get(root) as number, similarity: toRep[i] >= 0 ? toRep[i] : best[i] };
  });
}
