/**
 * The one escaping rule of every TSV file vertdup writes and reads (pairs.tsv, groups.tsv,
 * clusters.tsv, short-long.tsv, the pairs files of similarity and hamming-full): in a field,
 * a backslash is written `\\`, a tab `\t`, a line feed `\n` and a carriage return `\r`.
 * Reading undoes exactly that; a backslash before any other character is kept as it is, so
 * files written by other tools without escaping read back unchanged unless they contain
 * one of the four sequences.
 */

const SPECIAL = /[\t\n\r\\]/;
const SPECIAL_ALL = /[\t\n\r\\]/g;
const ESCAPED = /\\[tnr\\]/g;

const ESCAPE: Record<string, string> = { "\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\" };
const UNESCAPE: Record<string, string> = { "\\t": "\t", "\\n": "\n", "\\r": "\r", "\\\\": "\\" };

/** A value as a TSV field. */
export function escapeField(value: string): string {
  return SPECIAL.test(value) ? value.replace(SPECIAL_ALL, (c) => ESCAPE[c]) : value;
}

/** The value a TSV field stands for. */
export function unescapeField(field: string): string {
  return field.includes("\\") ? field.replace(ESCAPED, (s) => UNESCAPE[s]) : field;
}
