import type { SkippedDocs } from "./chunker.js";
import type { ReaderWarnings } from "./vertical.js";

/**
 * The `warnings` of a manifest: the reader's irregularities and, when there are any, the
 * documents left without a feature (no kept term, shingle or paragraph), which no pair can
 * contain, and the documents skipped for their size (--oversize skip), which no pair can
 * contain either and are not counted among the former.
 */
export type RunWarnings = ReaderWarnings & { documentsWithoutFeatures?: number; oversizeSkipped?: SkippedDocs; repeatedIds?: RepeatedIds };

/** Documents whose id (or ordinal, for a document without one) an earlier document has, and the first such id. */
export interface RepeatedIds {
  documents: number;
  first: string;
}

/**
 * The warning for stderr when ids name more than one document, or undefined: pairs.tsv,
 * groups.tsv and clusters.tsv name documents by id (clean goes by position and is not misled).
 */
export function repeatedIdsWarning(w: { repeatedIds?: RepeatedIds }, idAttr: string): string | undefined {
  const r = w.repeatedIds;
  if (r === undefined) return undefined;
  const n = r.documents === 1 ? "1 document has" : `${r.documents} documents have`;
  return `warning: ${n} the name of an earlier document (the first: "${r.first}"; a document without ${idAttr}= is named by its position): the outputs name both alike; give each <doc> a distinct ${idAttr}`;
}

/** `emptyDocuments` counts the skipped documents too (they are read as empty). */
export function runWarnings(reader: ReaderWarnings, emptyDocuments: number, skipped?: SkippedDocs): RunWarnings {
  const without = emptyDocuments - (skipped?.documents ?? 0);
  return {
    ...reader,
    ...(without > 0 ? { documentsWithoutFeatures: without } : {}),
    ...(skipped !== undefined && skipped.documents > 0 ? { oversizeSkipped: skipped } : {}),
  };
}

/** The warning for stderr when documents were skipped for their size, or undefined. */
export function skippedDocumentsWarning(skipped: SkippedDocs | undefined, what: string): string | undefined {
  if (skipped === undefined || skipped.documents === 0) return undefined;
  const n = skipped.documents === 1 ? "1 document" : `${skipped.documents} documents`;
  return `warning: skipped ${n} larger than --max-doc-bytes (--oversize skip; the first at ${skipped.first}): ${what}`;
}

/**
 * The warning for stderr when documents end without features, or undefined. `features`
 * names them (terms, shingles…); `why` says which options decide it.
 */
export function emptyDocumentsWarning(emptyDocuments: number, documents: number, features: string, why: string): string | undefined {
  if (emptyDocuments === 0) return undefined;
  if (emptyDocuments === documents) return `warning: no document has any ${features} left (${why}): no pair can be found`;
  return `warning: ${emptyDocuments} of ${documents} documents have no ${features} left (${why}) and are in no pair (manifest.json: warnings)`;
}
