import type { ClusterRow } from "../output/clusters-tsv.js";

/** What `clean` does with one document. */
export type DocAction = { kind: "keep" } | { kind: "remove" } | { kind: "mark"; attributes: string };

const escape = (value: string) => value.replace(/"/g, "&quot;");

/**
 * What a run's similarities in clusters.tsv (and so `dup_sim`) measure: what its threshold
 * applied to. lsh-cosine: the exact cosine of the documents' vectors with `--verify`, else the
 * relative Hamming similarity of their signatures; simhash384: that of their simhashes;
 * minhash and paragraphs: the exact Jaccard of their shingle or long-paragraph sets; exact:
 * identity (always 1).
 */
export type DupMeasure = "cosine" | "hamming" | "jaccard" | "identical";

/** The measure of a run of `method` (its manifest's), `verified` when it had `--verify`; undefined for an unknown method. */
export function dupMeasure(method: string | undefined, verified: boolean): DupMeasure | undefined {
  switch (method) {
    case "lsh-cosine":
      return verified ? "cosine" : "hamming";
    case "simhash384":
      return "hamming";
    case "minhash":
    case "paragraphs":
      return "jaccard";
    case "exact":
      return "identical";
    default:
      return undefined;
  }
}

/**
 * The attributes `clean --mark` adds to a `<doc>` line, each preceded by a space: a
 * representative gets its cluster only, any other member also the document it was found
 * similar to, their similarity and (when known) the measure of it.
 */
export function markAttributes(row: ClusterRow, measure?: DupMeasure): string {
  const cluster = ` dup_cluster="${row.cluster}"`;
  if (row.representative) return cluster;
  return ` dup_of="${escape(row.dupOf)}" dup_sim="${row.similarity}"${measure === undefined ? "" : ` dup_measure="${measure}"`}${cluster}`;
}

const MARK_NAMES = new Set(["dup_of", "dup_sim", "dup_measure", "dup_cluster"]);

/**
 * One attribute after the tag name or the previous attribute: its white space, name and
 * value (quoted as the reader reads them, or bare).
 */
const ATTRIBUTE = /(\s+)([^\s=>"']+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>"']*))?/y;

/**
 * A `<doc …>` line (without its line end) with its `dup_of`, `dup_sim`, `dup_measure` and
 * `dup_cluster` attributes, each with the one white-space character before it, replaced by `attributes`
 * inserted before the closing `>`: marking a marked corpus again replaces its marks, and with
 * no attributes the line loses them. Every other byte stays as it was (the line is handled as
 * latin1, byte for byte). Null when the line has nothing to change.
 */
export function remarkDocLine(line: Buffer, attributes: string): Buffer | null {
  const text = line.toString("latin1");
  const kept: string[] = [];
  let from = 0;
  ATTRIBUTE.lastIndex = "<doc".length;
  for (let m = ATTRIBUTE.exec(text); m !== null; m = ATTRIBUTE.exec(text)) {
    if (!MARK_NAMES.has(m[2])) continue;
    const cut = m.index + m[1].length - 1;
    kept.push(text.slice(from, cut));
    from = ATTRIBUTE.lastIndex;
  }
  if (kept.length === 0 && attributes === "") return null;
  const rest = text.slice(from);
  if (attributes === "") return Buffer.from(kept.join("") + rest, "latin1");
  kept.push(rest.slice(0, -1));
  return Buffer.concat([Buffer.from(kept.join(""), "latin1"), Buffer.from(`${attributes}>`, "utf8")]);
}

/**
 * The action for a document: with `mark`, every document gets its cluster's attributes, or
 * none (outside clusters) so that marks of an earlier run are removed; without, a cluster's
 * non-representatives go.
 */
export function actionFor(row: ClusterRow | undefined, mark: boolean, measure?: DupMeasure): DocAction {
  if (mark) return { kind: "mark", attributes: row === undefined ? "" : markAttributes(row, measure) };
  if (row === undefined) return { kind: "keep" };
  return row.representative ? { kind: "keep" } : { kind: "remove" };
}
