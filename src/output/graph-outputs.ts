import { join } from "node:path";
import { CLUSTERS_FILE, CLUSTERS_HEADER, CLUSTERS_SOURCES_HEADER, clusterLines } from "./clusters-tsv.js";
import type { DuplicateGraph } from "../clusters/duplicate-graph.js";
import { GraphClusters, type ClusterCounts } from "../clusters/graph-clusters.js";
import { IdentityGroups } from "../clusters/identity-groups.js";
import type { KeepPolicy } from "../core/method-options.js";
import type { PairsOutput } from "../core/options.js";
import type { DocSources } from "./doc-sources.js";
import { VertdupError } from "../core/errors.js";
import type { RepeatedIds } from "../corpus/run-warnings.js";
import type { DocIds } from "./doc-ids.js";
import { DocNames } from "./doc-names.js";
import { GROUPS_FILE, groupLines, groupsHeader } from "./groups-tsv.js";
import { writeLines } from "./line-file.js";
import { allPairLines, allPairsCount, edgeLines, edgeOrder, pairsHeader } from "./pairs.js";

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
  /** Documents whose id an earlier document has (DocIds.repeats), and the first such id; absent when none. */
  repeatedIds?: RepeatedIds;
}

export interface GraphOutputOptions {
  keep: KeepPolicy;
  pairs: PairsOutput;
  /**
   * A run with `--against`: `ids`, `tokens` and the graph cover the indices' documents then
   * the new ones; only clusters with a new document are written (with their groups and
   * edges; clusters and groups keep the numbers of one run over the concatenation, so they
   * have gaps), each document named with its index and its ordinal within its own source
   * (output/doc-names.ts). Counts are of what is written.
   */
  sources?: DocSources;
}

/**
 * Writes groups.tsv, pairs.tsv and clusters.tsv of a method's duplicate graph, each
 * atomically, in space linear in documents + edges. With `--pairs all` the number of
 * pairs.tsv lines is computed first, announced on stderr and refused over the limit before
 * any file is written.
 */
export async function writeGraphOutputs(outdir: string, graph: DuplicateGraph, ids: DocIds, tokens: ArrayLike<number>, opts: GraphOutputOptions): Promise<GraphOutputCounts> {
  if (ids.length !== graph.documents) throw new RangeError(`${ids.length} ids for ${graph.documents} documents`);
  const names = new DocNames(ids, opts.sources);
  const repeats = ids.repeats();
  const repeatedIds = repeats.first === undefined ? {} : { repeatedIds: { documents: repeats.documents, first: ids.get(repeats.first) } };
  if (opts.sources === undefined) {
    const written = await writeGroupsAndPairs(outdir, graph, names, opts.pairs);
    const clusters = new GraphClusters(graph, tokens, opts.keep);
    await writeLines(join(outdir, CLUSTERS_FILE), CLUSTERS_HEADER, clusterLines(clusters, names));
    return { ...written, clusters: clusters.counts, ...repeatedIds };
  }
  if (opts.sources.documents !== graph.documents) throw new RangeError(`${opts.sources.documents} sourced documents for ${graph.documents}`);
  // The clusters come first here: they decide which groups and edges are written.
  const clusters = new GraphClusters(graph, tokens, opts.keep);
  const { keepCluster, counts } = newClusters(clusters, opts.sources, opts.keep);
  const written = await writeGroupsAndPairs(outdir, graph, names, opts.pairs, (d) => keepCluster[clusters.clusterOf[d]] === 1);
  await writeLines(join(outdir, CLUSTERS_FILE), CLUSTERS_SOURCES_HEADER, clusterLines(clusters, names, keepCluster));
  return { ...written, clusters: counts, ...repeatedIds };
}

/** The clusters holding a new document (`keepCluster[c]` 1; index 0, no cluster, stays 0), and their counts. */
function newClusters(clusters: GraphClusters, sources: DocSources, keep: KeepPolicy): { keepCluster: Uint8Array; counts: ClusterCounts } {
  const { clusterOf } = clusters;
  const keepCluster = new Uint8Array(clusters.counts.clusters + 1);
  for (let d = sources.firstNew; d < clusterOf.length; d++) keepCluster[clusterOf[d]] = 1;
  keepCluster[0] = 0;
  const count = keepCluster.reduce((n, x) => n + x, 0);
  let members = 0;
  for (let d = 0; d < clusterOf.length; d++) members += keepCluster[clusterOf[d]];
  return { keepCluster, counts: { keep, clusters: count, documentsInClusters: members, duplicates: members - count } };
}

/**
 * groups.tsv and pairs.tsv (of the groups and edges whose documents `written` keeps, all by
 * default); the groups' arrays are dropped before the clusters are made.
 */
async function writeGroupsAndPairs(outdir: string, graph: DuplicateGraph, names: DocNames, pairs: PairsOutput, written?: (d: number) => boolean): Promise<Omit<GraphOutputCounts, "clusters">> {
  const groups = new IdentityGroups(graph.firstOf);
  let order = edgeOrder(graph.edges, graph.documents);
  if (written !== undefined) order = order.filter((k) => written(graph.edges.a(k)));
  let pairLines = order.length;
  if (pairs.mode === "all") {
    pairLines = allPairsCount(groups, graph.edges, order, written);
    if (pairs.limit > 0 && pairLines > pairs.limit) {
      throw new VertdupError(`--pairs all would write ${pairLines} lines to ${PAIRS_FILE}, more than --pairs-limit ${pairs.limit} (raise it, 0 for no limit, or use --pairs edges with groups.tsv)`);
    }
    process.stderr.write(`vertdup: ${PAIRS_FILE}: ${pairLines} document pairs (--pairs all)\n`);
  }
  let shared = groups.shared;
  let inShared = groups.documentsInShared;
  if (written !== undefined) {
    shared = 0;
    inShared = 0;
    for (let g = 0; g < groups.size.length; g++) {
      if (groups.size[g] >= 2 && written(g)) {
        shared++;
        inShared += groups.size[g];
      }
    }
  }
  await writeLines(join(outdir, GROUPS_FILE), groupsHeader(names), groupLines(groups, names, written));
  const lines = pairs.mode === "all" ? allPairLines(graph, groups, order, names, written) : edgeLines(graph.edges, order, names, graph.cosines);
  await writeLines(join(outdir, PAIRS_FILE), pairsHeader(names, graph.cosines !== undefined), lines);
  return { groups: shared, documentsInGroups: inShared, edges: order.length, pairLines };
}
