import type { SignatureStore } from "../runs/signature-store.js";
import { writeLineFile } from "./line-file.js";

/** Store index of each document's signature (documents without one: 0xffffffff). */
export function signatureOfDocument(store: SignatureStore, documents: number): Uint32Array {
  const out = new Uint32Array(documents).fill(0xffffffff);
  for (let i = 0; i < store.count; i++) {
    for (let p = store.offsets[i]; p < store.offsets[i + 1]; p++) out[store.docs[p]] = i;
  }
  return out;
}

export const PAIRS_HEADER = "doc_a\tdoc_b\tsimilarity\n";

/** One line of a pairs file: the two ids and the similarity to 4 decimals. */
export function pairsLine(idA: string, idB: string, similarity: number): string {
  return `${idA}\t${idB}\t${similarity.toFixed(4)}\n`;
}

/**
 * Writes pairs.tsv (header, then `doc_a doc_b similarity` with 4 decimals, doc_a the
 * earlier document) under a temporary name, renamed into place when complete.
 */
export async function writePairsTsv(
  path: string,
  keys: Float64Array,
  documents: number,
  ids: readonly string[],
  similarity: (a: number, b: number) => number,
): Promise<void> {
  await writeLineFile(path, PAIRS_HEADER, keys.length, (k) => {
    const a = Math.floor(keys[k] / documents);
    const b = keys[k] - a * documents;
    return pairsLine(ids[a], ids[b], similarity(a, b));
  });
}
