import { readFile } from "node:fs/promises";
import { writeLineFile } from "../output/line-file.js";
import { InputError, VertdupError } from "../util/errors.js";
import type { ClusterMember } from "./assign.js";

export const CLUSTERS_FILE = "clusters.tsv";
export const CLUSTERS_HEADER = "doc\tordinal\tcluster\trepresentative\tdup_of\tsimilarity\n";

/**
 * Writes clusters.tsv: per document with a pair, its id, 1-based corpus ordinal, cluster,
 * 1 when it is the representative (else 0), the representative's id, and its similarity
 * to it (`-` for the representative).
 */
export async function writeClustersTsv(path: string, members: readonly ClusterMember[], ids: readonly string[]): Promise<void> {
  await writeLineFile(path, CLUSTERS_HEADER, members.length, (k) => {
    const m = members[k];
    const isRep = m.doc === m.representative;
    return `${ids[m.doc]}\t${m.doc + 1}\t${m.cluster}\t${isRep ? 1 : 0}\t${ids[m.representative]}\t${isRep ? "-" : m.similarity.toFixed(4)}\n`;
  });
}

/** A row of clusters.tsv as `clean` needs it. */
export interface ClusterRow {
  id: string;
  cluster: number;
  representative: boolean;
  dupOf: string;
  /** As written (4 decimals), `-` for a representative. */
  similarity: string;
}

/** Reads clusters.tsv into a map from 0-based corpus ordinal to row. */
export async function readClustersTsv(path: string): Promise<Map<number, ClusterRow>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    throw new VertdupError(`${path}: cannot read (is --from an output directory of vertdup run?)`);
  }
  const lines = text.split("\n");
  if (lines[0] + "\n" !== CLUSTERS_HEADER) throw new InputError(path, 1, "not a clusters.tsv header");
  const rows = new Map<number, ClusterRow>();
  for (let i = 1; i < lines.length; i++) {
    if (lines[i] === "" && i === lines.length - 1) break;
    const f = lines[i].split("\t");
    const ordinal = Number(f[1]);
    const cluster = Number(f[2]);
    if (f.length !== 6 || !Number.isInteger(ordinal) || ordinal < 1 || !Number.isInteger(cluster) || (f[3] !== "0" && f[3] !== "1")) {
      throw new InputError(path, i + 1, "malformed clusters.tsv row");
    }
    rows.set(ordinal - 1, { id: f[0], cluster, representative: f[3] === "1", dupOf: f[4], similarity: f[5] });
  }
  return rows;
}
