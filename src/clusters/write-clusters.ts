import { join } from "node:path";
import type { KeepPolicy } from "../methods/method-options.js";
import { assignClusters } from "./assign.js";
import { CLUSTERS_FILE, writeClustersTsv } from "./clusters-tsv.js";

/** What the manifest says about the clusters. */
export interface ClusterCounts {
  keep: KeepPolicy;
  clusters: number;
  /** Documents with at least one pair. */
  documentsInClusters: number;
  /** Non-representatives: what `vertdup clean` removes. */
  duplicates: number;
}

/** The output step after pairs.tsv, shared by every method: clusters.tsv from the same pairs. */
export async function writeClusters(
  outdir: string,
  keys: Float64Array,
  documents: number,
  ids: readonly string[],
  tokens: ArrayLike<number>,
  similarity: (a: number, b: number) => number,
  keep: KeepPolicy,
): Promise<ClusterCounts> {
  const members = assignClusters(keys, documents, similarity, tokens, keep);
  await writeClustersTsv(join(outdir, CLUSTERS_FILE), members, ids);
  const reps = members.filter((m) => m.doc === m.representative).length;
  return { keep, clusters: reps, documentsInClusters: members.length, duplicates: members.length - reps };
}
