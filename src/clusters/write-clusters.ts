import { join } from "node:path";
import type { KeepPolicy } from "../methods/method-options.js";
import type { DocIds } from "../output/doc-ids.js";
import { writeLineFile } from "../output/line-file.js";
import { escapeField } from "../output/tsv-field.js";
import { assignClusters, type ClusterMember } from "./assign.js";
import { CLUSTERS_FILE, CLUSTERS_HEADER } from "./clusters-tsv.js";
import type { ClusterCounts } from "./graph-clusters.js";

export type { ClusterCounts };

/**
 * clusters.tsv from sorted pair keys: the quadratic path of the methods not yet on
 * DuplicateGraph (output/graph-outputs.ts replaces it; to be deleted with assign.ts).
 */
export async function writeClusters(
  outdir: string,
  keys: Float64Array,
  documents: number,
  ids: DocIds | readonly string[],
  tokens: ArrayLike<number>,
  similarity: (a: number, b: number) => number,
  keep: KeepPolicy,
): Promise<ClusterCounts> {
  const members: ClusterMember[] = assignClusters(keys, documents, similarity, tokens, keep);
  const idAt = (k: number) => escapeField(Array.isArray(ids) ? (ids as readonly string[])[k] : (ids as DocIds).get(k));
  await writeLineFile(join(outdir, CLUSTERS_FILE), CLUSTERS_HEADER, members.length, (k) => {
    const m = members[k];
    const isRep = m.doc === m.representative;
    return `${idAt(m.doc)}\t${m.doc + 1}\t${m.cluster}\t${isRep ? 1 : 0}\t${idAt(m.representative)}\t${isRep ? "-" : m.similarity.toFixed(4)}\n`;
  });
  const reps = members.filter((m) => m.doc === m.representative).length;
  return { keep, clusters: reps, documentsInClusters: members.length, duplicates: members.length - reps };
}
