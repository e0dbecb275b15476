import type { IdentityGroups } from "../clusters/identity-groups.js";
import type { DocNames } from "./doc-names.js";

export const GROUPS_FILE = "groups.tsv";
export const GROUPS_HEADER = "group\tdoc\tordinal\n";

/** groups.tsv's header: GROUPS_HEADER, with an `index` column after `doc` with --against. */
export function groupsHeader(names: DocNames): string {
  return `group\t${names.columns()}\tordinal\n`;
}

/**
 * groups.tsv: the identity groups of two or more documents (identical features under the
 * method: the thesis's `doc1(doc2 doc3 …)`), one row per document — group number, id,
 * 1-based corpus ordinal — groups numbered from 1 in corpus order of their first
 * documents, each group's rows together and in corpus order (its first row is its leader).
 * `written`, when given, says which leaders' groups to write (numbered among all groups, as
 * in one run over the concatenation).
 */
export function* groupLines(groups: IdentityGroups, names: DocNames, written?: (leader: number) => boolean): Generator<string> {
  const { size, start, members } = groups;
  let group = 0;
  for (let g = 0; g < size.length; g++) {
    if (size[g] < 2) continue;
    group++;
    if (written !== undefined && !written(g)) continue;
    for (let p = start[g]; p < start[g] + size[g]; p++) yield `${group}\t${names.name(members[p])}\t${names.ordinal(members[p])}\n`;
  }
}
