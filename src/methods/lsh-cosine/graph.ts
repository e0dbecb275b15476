import { EdgeList, NO_DOC, type DuplicateGraph } from "../../clusters/duplicate-graph.js";
import type { SignatureStore } from "../../runs/signature-store.js";
import type { PairVerifier } from "../../pleb/pair-verifier.js";
import type { PairColumns } from "../../pleb/spanning-forest.js";

/**
 * The result of a PLEB run as a DuplicateGraph, from the signature store and the signature
 * pairs kept (every found pair, or their spanning forest):
 * - documents sharing a signature form an identity group, led by the first of them (the
 *   store lists a signature's documents in corpus order);
 * - each pair (i, j) becomes an edge between the leaders of i and j, with the relative
 *   Hamming similarity 1 − d/bits (writeGraphOutputs puts edges in corpus order);
 * - with a `verifier` (`--verify`), each edge's exact cosine (DuplicateGraph.cosines).
 * Per document: firstOf and the signature index, 8 bytes.
 */
export function plebGraph(store: SignatureStore, documents: number, pairs: PairColumns, verifier?: PairVerifier): DuplicateGraph {
  const { offsets, docs, words } = store;
  const bits = words * 32;
  const leader = (i: number) => docs[offsets[i]];
  const firstOf = new Uint32Array(documents).fill(NO_DOC);
  for (let i = 0; i < store.count; i++) {
    for (let p = offsets[i]; p < offsets[i + 1]; p++) firstOf[docs[p]] = leader(i);
  }
  const edges = new EdgeList();
  for (let k = 0; k < pairs.i.length; k++) edges.push(leader(pairs.i[k]), leader(pairs.j[k]), 1 - pairs.distance[k] / bits);
  if (verifier === undefined) return { documents, firstOf, edges };
  const cosines = new Float64Array(pairs.i.length);
  for (let k = 0; k < pairs.i.length; k++) cosines[k] = verifier.cosine(pairs.i[k], pairs.j[k]);
  return { documents, firstOf, edges, cosines };
}
