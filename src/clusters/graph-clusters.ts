import type { KeepPolicy } from "../core/method-options.js";
import { NO_DOC, type DuplicateGraph } from "./duplicate-graph.js";
import { UnionFind } from "../util/union-find.js";

/** What the manifest says about the clusters. */
export interface ClusterCounts {
  keep: KeepPolicy;
  clusters: number;
  /** Documents in a cluster (an identity group of ≥ 2 or an edge joins them to another). */
  documentsInClusters: number;
  /** Non-representatives: what `vertdup clean` removes. */
  duplicates: number;
}

/** Whether document x should represent its cluster rather than y (`longest`: 001's rule). */
export function preferred(x: number, y: number, tokens: ArrayLike<number>, keep: KeepPolicy): boolean {
  if (keep === "longest" && tokens[x] !== tokens[y]) return tokens[x] > tokens[y];
  return x < y;
}

const NONE = 0xffffffff;
const LIMIT = 2 ** 31;

/**
 * The clusters of a duplicate graph: connected components of its identity groups and
 * edges, over all N documents in typed arrays (12 bytes per document at most, no Map or
 * Set). Components of one document are no cluster.
 */
export class GraphClusters {
  /** Per document: its 1-based cluster, numbered in corpus order of first documents; 0 for none. */
  readonly clusterOf: Uint32Array;
  /** Per cluster (index cluster − 1): the representative's ordinal. */
  readonly representative: Uint32Array;
  readonly counts: ClusterCounts;
  /**
   * Without `graph.similarity`, per group leader: the edge whose similarity its group's
   * members report (the edge to the representative's group when there is one, else the
   * leader's best edge); NONE where no edge applies.
   */
  private readonly edgeOf: Uint32Array | null;

  constructor(
    private readonly graph: DuplicateGraph,
    tokens: ArrayLike<number>,
    keep: KeepPolicy,
  ) {
    const n = graph.documents;
    if (n >= LIMIT) throw new RangeError(`${n} documents: clusters take fewer than 2^31`);
    const { firstOf, edges } = graph;
    const sets = new UnionFind(n);
    for (let d = 0; d < n; d++) if (firstOf[d] !== NO_DOC && firstOf[d] !== d) sets.union(d, firstOf[d]);
    for (let k = 0; k < edges.length; k++) sets.union(edges.a(k), edges.b(k));
    // Int32 values stay small integers for V8: a root r of a set of two or more is marked
    // −1 − r, a representative is kept per root in `rep` (−1: none yet).
    const root = sets.roots();
    const rep = new Int32Array(n).fill(-1);
    for (let d = 0; d < n; d++) {
      const r = root[d] < 0 ? d : root[d];
      if (r !== d) root[r] = -1 - r;
      if (rep[r] < 0 || preferred(d, rep[r], tokens, keep)) rep[r] = d;
    }
    // root[] becomes the cluster number, rep[] is compacted to cluster order (c − 1 ≤ d).
    let clusters = 0;
    let members = 0;
    for (let d = 0; d < n; d++) {
      const r = root[d];
      if (r < 0) {
        rep[clusters] = rep[d];
        root[d] = ++clusters;
        members++;
      } else if (r === d) root[d] = 0;
      else {
        root[d] = root[r];
        members++;
      }
    }
    this.clusterOf = new Uint32Array(root.buffer, 0, n);
    this.representative = new Uint32Array(rep.buffer, 0, clusters);
    this.counts = { keep, clusters, documentsInClusters: members, duplicates: members - clusters };
    this.edgeOf = graph.similarity === undefined && edges.length > 0 ? this.reportedEdges() : null;
  }

  /** The representative of d's cluster (d must be in one). */
  representativeOf(d: number): number {
    return this.representative[this.clusterOf[d] - 1];
  }

  /**
   * A member's similarity to its representative: `graph.similarity` when the method has it;
   * else 1 within the representative's identity group, the edge between the two groups when
   * one was found, otherwise the best edge of the member's group.
   */
  similarity(d: number): number {
    const r = this.representativeOf(d);
    if (this.graph.similarity !== undefined) return this.graph.similarity(d, r);
    const { firstOf, edges } = this.graph;
    if (firstOf[d] === firstOf[r]) return 1;
    const k = this.edgeOf === null ? NONE : this.edgeOf[firstOf[d]];
    return k === NONE ? 1 : edges.similarity(k);
  }

  private reportedEdges(): Uint32Array {
    const { firstOf, edges } = this.graph;
    const edgeOf = new Uint32Array(this.graph.documents).fill(NONE);
    const better = (x: number, k: number) => {
      if (edgeOf[x] === NONE || edges.similarity(k) > edges.similarity(edgeOf[x])) edgeOf[x] = k;
    };
    for (let k = 0; k < edges.length; k++) {
      better(edges.a(k), k);
      better(edges.b(k), k);
    }
    for (let k = 0; k < edges.length; k++) {
      const a = edges.a(k);
      const b = edges.b(k);
      if (firstOf[this.representativeOf(a)] === b) edgeOf[a] = k;
      if (firstOf[this.representativeOf(b)] === a) edgeOf[b] = k;
    }
    return edgeOf;
  }
}
