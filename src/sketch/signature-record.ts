/** One document's signature in a run file. */
export interface SigRecord {
  /** Corpus ordinal of the document. */
  d: number;
  /** Signature words (bit j is bit j & 31 of word j >>> 5). */
  s: Uint32Array;
}

/** Lexicographic order of signatures as unsigned words, then corpus order. */
export function compareSigRecords(a: SigRecord, b: SigRecord): number {
  return compareWords(a.s, b.s) || a.d - b.d;
}

export function compareWords(a: Uint32Array, b: Uint32Array): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}
