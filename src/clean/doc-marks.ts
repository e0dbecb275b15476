import type { ClusterRow } from "../clusters/clusters-tsv.js";

/** What `clean` does with one document. */
export type DocAction = { kind: "keep" } | { kind: "remove" } | { kind: "mark"; attributes: string };

const escape = (value: string) => value.replace(/"/g, "&quot;");

/**
 * The attributes `clean --mark` adds to a `<doc>` line, each preceded by a space: a
 * representative gets its cluster only, any other member also its representative and
 * similarity.
 */
export function markAttributes(row: ClusterRow): string {
  const cluster = ` dup_cluster="${row.cluster}"`;
  return row.representative ? cluster : ` dup_of="${escape(row.dupOf)}" dup_sim="${row.similarity}"${cluster}`;
}

/** Removes what `markAttributes` added to a `<doc>` line (the inverse, for checks). */
export function stripMarks(docLine: string): string {
  return docLine.replace(/(?: dup_of="[^"]*" dup_sim="[^"]*")? dup_cluster="\d+"(?=>$)/, "");
}

/** The action for a cluster member (documents outside clusters are kept as they are). */
export function actionFor(row: ClusterRow | undefined, mark: boolean): DocAction {
  if (row === undefined) return { kind: "keep" };
  if (mark) return { kind: "mark", attributes: markAttributes(row) };
  return row.representative ? { kind: "keep" } : { kind: "remove" };
}
