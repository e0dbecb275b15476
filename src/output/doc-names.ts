import type { DocSources } from "./doc-sources.js";
import type { DocIds } from "./doc-ids.js";
import { escapeField } from "./tsv-field.js";

/**
 * How the TSV outputs name a document. In one corpus: its escaped id and its 1-based corpus
 * ordinal. In a run with `--against` (`sources`): its id followed by an `index` field (the
 * index directory as given, empty for a new document), and the 1-based ordinal within its
 * own source, so that `clean` of a batch finds its documents by position.
 */
export class DocNames {
  constructor(
    readonly ids: DocIds,
    readonly sources?: DocSources,
  ) {}

  /** The id field, and with sources the index field after it. */
  name(d: number): string {
    const id = escapeField(this.ids.get(d));
    return this.sources === undefined ? id : `${id}\t${escapeField(this.sources.sourceName(d))}`;
  }

  ordinal(d: number): number {
    return (this.sources === undefined ? d : this.sources.localOrdinal(d)) + 1;
  }

  /** A header's id column(s): `doc` or `doc\tindex` (with a suffix: `doc_a\tindex_a`). */
  columns(suffix = ""): string {
    return this.sources === undefined ? `doc${suffix}` : `doc${suffix}\tindex${suffix}`;
  }
}
