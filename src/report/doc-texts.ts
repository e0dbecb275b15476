import { chunkCorpus, readLimits } from "../corpus/chunker.js";
import { emptyWarnings, parseChunk } from "../corpus/vertical.js";
import { DEFAULT_CHUNK_BYTES } from "../core/options.js";

/** The beginning of one document as the report shows it. */
export interface DocText {
  id: string;
  /** The first tokens (column 0, the word forms). */
  tokens: string[];
  /** All token lines of the document. */
  total: number;
}

export interface DocTextOptions {
  idAttr: string;
  /** Tokens kept per document. */
  tokens: number;
  maxDocBytes?: number;
}

/**
 * The first tokens of the documents at the given 0-based ordinals, read from the corpus in
 * one streaming pass that parses only the chunks holding one of them and stops after the
 * last: memory is the wanted documents' beginnings and one chunk.
 */
export async function readDocTexts(inputs: readonly string[], ordinals: Iterable<number>, opts: DocTextOptions): Promise<Map<number, DocText>> {
  const wanted = [...new Set(ordinals)].filter((o) => Number.isInteger(o)).sort((x, y) => x - y);
  const texts = new Map<number, DocText>();
  if (wanted.length === 0) return texts;
  const last = wanted[wanted.length - 1];
  let next = 0;
  for await (const chunk of chunkCorpus(inputs, DEFAULT_CHUNK_BYTES, readLimits(opts.maxDocBytes))) {
    const end = chunk.firstDoc + chunk.docCount;
    if (wanted[next] < end) {
      parseChunk(chunk, { column: 0, idAttr: opts.idAttr }, emptyWarnings(), (doc) => {
        if (doc.ordinal === wanted[next]) {
          texts.set(doc.ordinal, { id: doc.id, tokens: doc.tokens.slice(0, opts.tokens), total: doc.tokens.length });
          next++;
        }
      });
    }
    if (end > last) break;
  }
  return texts;
}
