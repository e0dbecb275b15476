import type { ReaderWarnings } from "../corpus/vertical.js";

/**
 * The `warnings` of a manifest: the reader's irregularities and, when there are any, the
 * documents left without a feature (no kept term, shingle or paragraph), which no pair can
 * contain.
 */
export type RunWarnings = ReaderWarnings & { documentsWithoutFeatures?: number };

export function runWarnings(reader: ReaderWarnings, emptyDocuments: number): RunWarnings {
  return emptyDocuments > 0 ? { ...reader, documentsWithoutFeatures: emptyDocuments } : reader;
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
