import type { StoredChunk } from "../../corpus/chunker.js";
import { displayName } from "../../corpus/open-input.js";
import { loadStored } from "../../corpus/stored.js";
import { emptyWarnings, parseChunkWith, type Doc, type ReaderWarnings, type TokenReader } from "../../corpus/vertical.js";
import { InputError } from "../../core/errors.js";
import type { FeatureOptions } from "../../core/method-options.js";

/** What every method's chunk task returns besides its features. */
export interface ShardBase {
  /** Corpus ordinal of the chunk's first document. */
  firstDoc: number;
  ids: string[];
  /** With `--partition-attr`: each document's partition value. */
  parts?: string[];
  /** Token lines of each document (the length `--keep longest` compares). */
  tokens: Uint32Array;
  warnings: ReaderWarnings;
}

export interface ChunkTask {
  workdir: string;
  /** In memory (read by the coordinator), or a planned byte range of a plain file (chunk-plan.ts). */
  chunk: StoredChunk;
  options: FeatureOptions;
}

/** A worker runs one task at a time: each chunk read from a file reuses this buffer, so the chunks leave no garbage behind. */
const readBuffer = { bytes: new Uint8Array(0) };

/**
 * Parses a chunk, calling `onDoc` per document with its tokens read by `readToken`, and
 * gathers the ids and lengths.
 */
export function scanShard<T>(chunk: StoredChunk, options: FeatureOptions, readToken: TokenReader<T>, onDoc: (doc: Doc<T>) => void): ShardBase {
  const warnings = emptyWarnings();
  const ids: string[] = [];
  const parts: string[] = [];
  const tokens: number[] = [];
  const raw = loadStored(chunk.bytes, readBuffer);
  parseChunkWith({ ...chunk, bytes: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength) }, options, warnings, readToken, (doc) => {
    ids.push(doc.id);
    if (doc.part !== undefined) parts.push(doc.part);
    tokens.push(doc.tokens.length);
    onDoc(doc);
  });
  if (ids.length !== chunk.docCount) {
    throw new InputError(displayName(chunk.file), chunk.firstLine, `chunk has ${chunk.docCount} <doc> lines but ${ids.length} documents were read`);
  }
  const base: ShardBase = { firstDoc: chunk.firstDoc, ids, tokens: Uint32Array.from(tokens), warnings };
  return options.partitionAttr === undefined ? base : { ...base, parts };
}
