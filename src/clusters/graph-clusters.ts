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
 * edges, over all N documents in typed arrays (12 bytes per document kept; while each
 * member's step towards its representative is found, 12 more and 8 per edge; no Map or
 * Set). Components of one document are no cluster.
 */
export class GraphClusters {
  /** Per document: its 1-based cluster, numbered in corpus order of first documents; 0 for none. */
  readonly clusterOf: Uint32Array;
  /** Per cluster (index cluster − 1): the representative's ordinal. */
  readonly representative: Uint32Array;
  readonly counts: ClusterCounts;
  /**
   * Per group leader outside its representative's group: the edge by which the group is
   * reached from there, one step of a shortest path of edges, the best of them (highest
   * similarity, ties the earlier other end); NONE elsewhere. Null without edges.
   */
  private readonly via: Uint32Array | null;

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
    this.via = edges.length > 0 ? this.shortestSteps() : null;
  }

  /** The representative of d's cluster (d must be in one). */
  representativeOf(d: number): number {
    return this.representative[this.clusterOf[d] - 1];
  }

  /**
   * The document a member d was found similar to, one step closer to its representative r
   * (following dupOf from any member ends at r): r when d is in r's identity group or its
   * group has an edge to r's; else the leader of the group at the other end of its step.
   */
  dupOf(d: number): number {
    const r = this.representativeOf(d);
    const k = this.step(d, r);
    if (k === NONE) return r;
    const { firstOf, edges } = this.graph;
    const other = edges.a(k) === firstOf[d] ? edges.b(k) : edges.a(k);
    return other === firstOf[r] ? r : other;
  }

  /**
   * The value, under the measure the method's threshold applies to, of d and dupOf(d): 1
   * within an identity group, else the edge's (its exact cosine when the edges were
   * verified: DuplicateGraph.cosines).
   */
  similarity(d: number): number {
    const k = this.step(d, this.representativeOf(d));
    if (k === NONE) return 1;
    return this.graph.cosines === undefined ? this.graph.edges.similarity(k) : this.graph.cosines[k];
  }

  /** The edge of d's step towards r, NONE within r's identity group. */
  private step(d: number, r: number): number {
    const { firstOf } = this.graph;
    return this.via === null || firstOf[d] === firstOf[r] ? NONE : this.via[firstOf[d]];
  }

  /**
   * `via`: a breadth-first walk from every representative's group over the edges (an
   * adjacency list of the edges by leader, dropped after) gives each leader its distance;
   * then each leader takes the best of its edges to a leader one step closer. The result
   * depends on the edges, not on their order.
   */
  private shortestSteps(): Uint32Array {
    const { firstOf, edges, documents: n } = this.graph;
    const start = new Uint32Array(n + 1);
    for (let k = 0; k < edges.length; k++) {
      start[edges.a(k) + 1]++;
      start[edges.b(k) + 1]++;
    }
    for (let d = 0; d < n; d++) start[d + 1] += start[d];
    const adjacent = new Uint32Array(2 * edges.length);
    // First the fill cursor of each leader's list, then the walk's queue.
    const queue = start.slice(0, n);
    for (let k = 0; k < edges.length; k++) {
      adjacent[queue[edges.a(k)]++] = k;
      adjacent[queue[edges.b(k)]++] = k;
    }
    const distance = new Uint32Array(n).fill(NONE);
    let tail = 0;
    for (const r of this.representative) {
      distance[firstOf[r]] = 0;
      queue[tail++] = firstOf[r];
    }
    for (let head = 0; head < tail; head++) {
      const x = queue[head];
      for (let p = start[x]; p < start[x + 1]; p++) {
        const k = adjacent[p];
        const y = edges.a(k) === x ? edges.b(k) : edges.a(k);
        if (distance[y] !== NONE) continue;
        distance[y] = distance[x] + 1;
        queue[tail++] = y;
      }
    }
    const via = new Uint32Array(n).fill(NONE);
    const value = (k: number) => (this.graph.cosines === undefined ? edges.similarity(k) : this.graph.cosines[k]);
    const offer = (x: number, y: number, k: number) => {
      if (distance[x] !== distance[y] + 1) return;
      const was = via[x];
      if (was === NONE || value(k) > value(was) || (value(k) === value(was) && y < edges.a(was) + edges.b(was) - x)) via[x] = k;
    };
    for (let k = 0; k < edges.length; k++) {
      offer(edges.a(k), edges.b(k), k);
      offer(edges.b(k), edges.a(k), k);
    }
    return via;
  }
}
