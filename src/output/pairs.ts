import type { SignatureStore } from "../runs/signature-store.js";
import type { DuplicateGraph, EdgeList } from "../clusters/duplicate-graph.js";
import type { IdentityGroups } from "../clusters/identity-groups.js";
import type { DocNames } from "./doc-names.js";
import { escapeField } from "./tsv-field.js";

/** Store index of each document's signature (documents without one: 0xffffffff). */
export function signatureOfDocument(store: SignatureStore, documents: number): Uint32Array {
  const out = new Uint32Array(documents).fill(0xffffffff);
  for (let i = 0; i < store.count; i++) {
    for (let p = store.offsets[i]; p < store.offsets[i + 1]; p++) out[store.docs[p]] = i;
  }
  return out;
}

export const PAIRS_HEADER = "doc_a\tdoc_b\tsimilarity\n";
/** pairs.tsv of verified lsh-cosine edges (DuplicateGraph.cosines). */
export const PAIRS_COSINE_HEADER = "doc_a\tdoc_b\tsimilarity\tcosine\n";

/** pairs.tsv's header: with --against each id is followed by its index (`index_a`, `index_b`). */
export function pairsHeader(names: DocNames, cosine: boolean): string {
  return `${names.columns("_a")}\t${names.columns("_b")}\tsimilarity${cosine ? "\tcosine" : ""}\n`;
}

/** One line of a pairs file: the two ids (escaped), the similarity and the cosine if any, to 4 decimals. */
export function pairsLine(idA: string, idB: string, similarity: number, cosine?: number): string {
  const extra = cosine === undefined ? "" : `\t${cosine.toFixed(4)}`;
  return `${escapeField(idA)}\t${escapeField(idB)}\t${similarity.toFixed(4)}${extra}\n`;
}

/** A stable counting sort of `order` by key(order[i]) ∈ [0, n). */
function countingSort(order: Uint32Array, key: (k: number) => number, n: number): Uint32Array {
  const count = new Uint32Array(n + 1);
  for (let i = 0; i < order.length; i++) count[key(order[i]) + 1]++;
  for (let v = 0; v < n; v++) count[v + 1] += count[v];
  const out = new Uint32Array(order.length);
  for (let i = 0; i < order.length; i++) out[count[key(order[i])]++] = order[i];
  return out;
}

/**
 * Indices 0..count-1 of pairs ordered by (first, second), both in [0, n): two stable
 * counting sorts, linear in pairs + n (no comparison sort, no key that could overflow).
 */
export function pairOrder(count: number, first: (k: number) => number, second: (k: number) => number, n: number): Uint32Array {
  let order: Uint32Array = new Uint32Array(count);
  for (let k = 0; k < count; k++) order[k] = k;
  order = countingSort(order, second, n);
  return countingSort(order, first, n);
}

/** Indices of the edges in corpus order (by a, then b), each pair of documents once. */
export function edgeOrder(edges: EdgeList, documents: number): Uint32Array {
  const order = pairOrder(edges.length, (k) => edges.a(k), (k) => edges.b(k), documents);
  let kept = 0;
  for (let i = 0; i < order.length; i++) {
    const k = order[i];
    if (kept > 0 && edges.a(order[kept - 1]) === edges.a(k) && edges.b(order[kept - 1]) === edges.b(k)) continue;
    order[kept++] = k;
  }
  return order.subarray(0, kept);
}

/** pairs.tsv in `edges` mode: one line per edge between group leaders, corpus order (with each edge's cosine, if given). */
export function* edgeLines(edges: EdgeList, order: Uint32Array, names: DocNames, cosines?: Float64Array): Generator<string> {
  for (let i = 0; i < order.length; i++) {
    const k = order[i];
    const extra = cosines === undefined ? "" : `\t${cosines[k].toFixed(4)}`;
    yield `${names.name(edges.a(k))}\t${names.name(edges.b(k))}\t${edges.similarity(k).toFixed(4)}${extra}\n`;
  }
}

/**
 * Lines of pairs.tsv in `all` mode: every pair inside a group, |A|·|B| per edge of `order`;
 * `written`, when given, says which leaders' groups count.
 */
export function allPairsCount(groups: IdentityGroups, edges: EdgeList, order: Uint32Array, written?: (leader: number) => boolean): number {
  let total = 0;
  for (let g = 0; g < groups.size.length; g++) if (written === undefined || written(g)) total += (groups.size[g] * (groups.size[g] - 1)) / 2;
  for (let i = 0; i < order.length; i++) total += groups.size[edges.a(order[i])] * groups.size[edges.b(order[i])];
  return total;
}

/**
 * pairs.tsv in `all` mode (pieces of whole lines), generated in corpus order without holding
 * the pairs: for each document x, the documents y > x of its own group (1.0000) and of every
 * group joined to its group by an edge (the edge's similarity), merged in order through a
 * heap of those groups' member lists. Work is proportional to the lines written (times log
 * of the degree). With `graph.cosines`, a line also gets its edge's cosine (1.0000 inside
 * a group of identical signatures: the same direction, to the signature's precision).
 * `written`, when given, says which leaders' groups to write (`order` holds only their edges).
 */
export function* allPairLines(graph: DuplicateGraph, groups: IdentityGroups, order: Uint32Array, names: DocNames, written?: (leader: number) => boolean): Generator<string> {
  const { firstOf, edges, cosines } = graph;
  const text4 = (similarity: number, k: number) => (cosines === undefined ? similarity.toFixed(4) : `${similarity.toFixed(4)}\t${cosines[k].toFixed(4)}`);
  const n = graph.documents;
  const { size, start, members } = groups;
  // Adjacency of group leaders through the edges (CSR).
  const adjStart = new Uint32Array(n + 1);
  for (let i = 0; i < order.length; i++) {
    adjStart[edges.a(order[i]) + 1]++;
    adjStart[edges.b(order[i]) + 1]++;
  }
  let maxDegree = 0;
  for (let d = 0; d < n; d++) {
    maxDegree = Math.max(maxDegree, adjStart[d + 1]);
    adjStart[d + 1] += adjStart[d];
  }
  const adjOther = new Uint32Array(2 * order.length);
  const adjEdge = new Uint32Array(2 * order.length);
  const fill = adjStart.slice(0, n);
  for (let i = 0; i < order.length; i++) {
    const k = order[i];
    const a = edges.a(k);
    const b = edges.b(k);
    adjOther[fill[a]] = b;
    adjEdge[fill[a]++] = k;
    adjOther[fill[b]] = a;
    adjEdge[fill[b]++] = k;
  }
  // One list per group merged for x: a range of `members` and its similarity text.
  const pos = new Uint32Array(maxDegree + 1);
  const end = new Uint32Array(maxDegree + 1);
  const sim: string[] = new Array<string>(maxDegree + 1);
  const heap = new Uint32Array(maxDegree + 1);
  let heapSize = 0;
  const less = (i: number, j: number) => members[pos[heap[i]]] < members[pos[heap[j]]];
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heapSize && less(l, m)) m = l;
      if (r < heapSize && less(r, m)) m = r;
      if (m === i) return;
      const t = heap[i];
      heap[i] = heap[m];
      heap[m] = t;
      i = m;
    }
  };
  /** First position in members[from, to) holding a document > x. */
  const after = (x: number, from: number, to: number) => {
    while (from < to) {
      const mid = (from + to) >>> 1;
      if (members[mid] > x) to = mid;
      else from = mid + 1;
    }
    return from;
  };
  let x = 0;
  let lists = 0;
  const add = (leader: number, similarity: string) => {
    const to = start[leader] + size[leader];
    const from = after(x, start[leader], to);
    if (from === to) return;
    pos[lists] = from;
    end[lists] = to;
    sim[lists] = similarity;
    lists++;
  };
  for (x = 0; x < n; x++) {
    const g = firstOf[x];
    if (g === 0xffffffff || (written !== undefined && !written(g))) continue;
    lists = 0;
    if (size[g] >= 2) add(g, cosines === undefined ? "1.0000" : "1.0000\t1.0000");
    for (let p = adjStart[g]; p < adjStart[g + 1]; p++) add(adjOther[p], text4(edges.similarity(adjEdge[p]), adjEdge[p]));
    if (lists === 0) continue;
    heapSize = lists;
    for (let i = 0; i < lists; i++) heap[i] = i;
    for (let i = (heapSize >> 1) - 1; i >= 0; i--) siftDown(i);
    // Lines of one document go out together: a generator step per line would cost more
    // than the line.
    const head = names.name(x) + "\t";
    let text = "";
    while (heapSize > 0) {
      const list = heap[0];
      text += `${head}${names.name(members[pos[list]])}\t${sim[list]}\n`;
      if (++pos[list] === end[list]) heap[0] = heap[--heapSize];
      siftDown(0);
      if (text.length > 1 << 16) {
        yield text;
        text = "";
      }
    }
    yield text;
  }
}
