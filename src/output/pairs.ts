import type { SignatureStore } from "../runs/signature-store.js";
import type { FoundPairs } from "../pleb/found-pairs.js";
import { writeLineFile } from "./line-file.js";

/**
 * Document pairs in corpus order: key a·N + b for documents a < b (N documents, exact while
 * N² < 2^53), sorted. Every document of signature i pairs with every document of signature
 * j for a found pair (i, j); documents sharing a signature pair with each other.
 */
export function documentPairKeys(store: SignatureStore, found: FoundPairs, documents: number): Float64Array {
  let total = 0;
  const docsOf = (i: number) => store.offsets[i + 1] - store.offsets[i];
  for (let i = 0; i < store.count; i++) total += (docsOf(i) * (docsOf(i) - 1)) / 2;
  for (const [i, j] of found.pairs()) total += docsOf(i) * docsOf(j);
  const keys = new Float64Array(total);
  let k = 0;
  const { offsets, docs } = store;
  const put = (x: number, y: number) => {
    keys[k++] = x < y ? x * documents + y : y * documents + x;
  };
  for (let i = 0; i < store.count; i++) {
    for (let p = offsets[i]; p < offsets[i + 1]; p++) {
      for (let q = p + 1; q < offsets[i + 1]; q++) put(docs[p], docs[q]);
    }
  }
  for (const [i, j] of found.pairs()) {
    for (let p = offsets[i]; p < offsets[i + 1]; p++) {
      for (let q = offsets[j]; q < offsets[j + 1]; q++) put(docs[p], docs[q]);
    }
  }
  return keys.sort();
}

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
