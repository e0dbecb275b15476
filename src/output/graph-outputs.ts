import { join } from "node:path";
import { CLUSTERS_FILE, CLUSTERS_HEADER, clusterLines } from "../clusters/clusters-tsv.js";
import type { DuplicateGraph } from "../clusters/duplicate-graph.js";
import { GraphClusters, type ClusterCounts } from "../clusters/graph-clusters.js";
import { IdentityGroups } from "../clusters/identity-groups.js";
import type { KeepPolicy } from "../methods/method-options.js";
import type { PairsOutput } from "../options.js";
import { VertdupError } from "../util/errors.js";
import type { DocIds } from "./doc-ids.js";
import { GROUPS_FILE, GROUPS_HEADER, groupLines } from "./groups-tsv.js";
import { writeLines } from "./line-file.js";
import { PAIRS_COSINE_HEADER, PAIRS_HEADER, allPairLines, allPairsCount, edgeLines, edgeOrder } from "./pairs.js";

export const PAIRS_FILE = "pairs.tsv";

/** What the manifest says about the graph outputs. */
export interface GraphOutputCounts {
  /** Identity groups of two or more documents (groups.tsv), and the documents in them. */
  groups: number;
  documentsInGroups: number;
  /** Edges between group leaders (distinct pairs of leaders). */
  edges: number;
  /** Lines of pairs.tsv (edges, or with --pairs all every document pair). */
  pairLines: number;
  clusters: ClusterCounts;
}

/**
 * Writes groups.tsv, pairs.tsv and clusters.tsv of a method's duplicate graph, each
 * atomically, in space linear in documents + edges. With `--pairs all` the number of
 * pairs.tsv lines is computed first, announced on stderr and refused over the limit before
 * any file is written.
 */
export async function writeGraphOutputs(
  outdir: string,
  graph: DuplicateGraph,
  ids: DocIds,
  tokens: ArrayLike<number>,
  opts: { keep: KeepPolicy; pairs: PairsOutput },
): Promise<GraphOutputCounts> {
  if (ids.length !== graph.documents) throw new RangeError(`${ids.length} ids for ${graph.documents} documents`);
  const written = await writeGroupsAndPairs(outdir, graph, ids, opts.pairs);
  const clusters = new GraphClusters(graph, tokens, opts.keep);
  await writeLines(join(outdir, CLUSTERS_FILE), CLUSTERS_HEADER, clusterLines(clusters, ids));
  return { ...written, clusters: clusters.counts };
}

/** groups.tsv and pairs.tsv; the groups' arrays are dropped before the clusters are made. */
async function writeGroupsAndPairs(outdir: string, graph: DuplicateGraph, ids: DocIds, pairs: PairsOutput): Promise<Omit<GraphOutputCounts, "clusters">> {
  const groups = new IdentityGroups(graph.firstOf);
  const order = edgeOrder(graph.edges, graph.documents);
  let pairLines = order.length;
  if (pairs.mode === "all") {
    pairLines = allPairsCount(groups, graph.edges, order);
    if (pairs.limit > 0 && pairLines > pairs.limit) {
      throw new VertdupError(`--pairs all would write ${pairLines} lines to ${PAIRS_FILE}, more than --pairs-limit ${pairs.limit} (raise it, 0 for no limit, or use --pairs edges with groups.tsv)`);
    }
    process.stderr.write(`vertdup: ${PAIRS_FILE}: ${pairLines} document pairs (--pairs all)\n`);
  }
  await writeLines(join(outdir, GROUPS_FILE), GROUPS_HEADER, groupLines(groups, ids));
  const lines = pairs.mode === "all" ? allPairLines(graph, groups, order, ids) : edgeLines(graph.edges, order, ids, graph.cosines);
  await writeLines(join(outdir, PAIRS_FILE), graph.cosines === undefined ? PAIRS_HEADER : PAIRS_COSINE_HEADER, lines);
  return { groups: groups.shared, documentsInGroups: groups.documentsInShared, edges: order.length, pairLines };
}
