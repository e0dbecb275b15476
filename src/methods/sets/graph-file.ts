import { join } from "node:path";
import { EdgeList } from "../../clusters/duplicate-graph.js";
import { readRunFileSync, writeRunFile } from "../../util/run-file.js";
import type { Found } from "./set-method.js";

/** The search step's result in the work directory: what the steps after it read (outputs, index). */
export function graphFile(workdir: string): string {
  return join(workdir, "methods", "graph.zst");
}

/** The graph as stored: its edges as columns. */
interface StoredGraph {
  documents: number;
  firstOf: Uint32Array;
  a: Uint32Array;
  b: Uint32Array;
  similarity: Float64Array;
  counts: Omit<Found, "graph">;
}

export async function writeGraph(workdir: string, found: Found): Promise<void> {
  const { graph, ...counts } = found;
  const { edges } = graph;
  const a = new Uint32Array(edges.length);
  const b = new Uint32Array(edges.length);
  const similarity = new Float64Array(edges.length);
  for (let k = 0; k < edges.length; k++) {
    a[k] = edges.a(k);
    b[k] = edges.b(k);
    similarity[k] = edges.similarity(k);
  }
  const record: StoredGraph = { documents: graph.documents, firstOf: graph.firstOf, a, b, similarity, counts };
  await writeRunFile(graphFile(workdir), [record]);
}

export function readGraph(workdir: string): Found {
  const [stored] = readRunFileSync<StoredGraph>(graphFile(workdir));
  const edges = new EdgeList();
  for (let k = 0; k < stored.a.length; k++) edges.push(stored.a[k], stored.b[k], stored.similarity[k]);
  return { graph: { documents: stored.documents, firstOf: stored.firstOf, edges }, ...stored.counts };
}
