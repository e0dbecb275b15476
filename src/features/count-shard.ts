import type { Chunk } from "../corpus/chunker.js";
import { displayName } from "../corpus/open-input.js";
import { emptyWarnings, parseChunkWith, type ReaderWarnings } from "../corpus/vertical.js";
import { encodeRecords } from "../runs/run-file.js";
import { writeAtomic } from "../util/atomic.js";
import { InputError } from "../util/errors.js";
import { countsOfHashes, keptHashes, tokenHash, type TermOptions } from "./terms.js";
import type { ReaderOptions } from "../corpus/vertical.js";
import { shardFile, shardName, writeMarker } from "../coordinator/workdir.js";

/** The term counts of a shard's documents, flattened (one record per shard file). */
export interface ShardCounts {
  /** Corpus ordinal of each document. */
  ordinals: Uint32Array;
  /** Number of distinct terms of each document; its terms follow the previous ones. */
  lengths: Uint32Array;
  terms: Float64Array;
  counts: Uint32Array;
}

/** Ids and token counts of a shard's documents, in corpus order. */
export interface ShardDocs {
  ids: string[];
  tokens: Uint32Array;
}

/** Partial document frequencies of one shard, sorted by term. */
export interface ShardDf {
  terms: Float64Array;
  dfs: Uint32Array;
}

export interface ShardStats {
  docs: number;
  tokens: number;
  keptTokens: number;
  warnings: ReaderWarnings;
}

/**
 * Document frequencies from the documents' distinct terms by sorting them (a hash table
 * of the shard's vocabulary was slower: one cache miss per term occurrence).
 */
export function documentFrequencies(docTerms: Float64Array): ShardDf {
  const sorted = docTerms.slice().sort();
  const terms = new Float64Array(sorted.length);
  const dfs = new Uint32Array(sorted.length);
  let n = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (i === 0 || sorted[i] !== sorted[i - 1]) terms[n++] = sorted[i];
    dfs[n - 1]++;
  }
  return { terms: terms.slice(0, n), dfs: dfs.slice(0, n) };
}

export interface CountTask {
  workdir: string;
  chunk: Chunk;
  options: ReaderOptions & TermOptions;
}

/**
 * Pass 1 of the preparatory phase for one chunk: parse, normalise, count terms per
 * document and document frequencies, and write the shard's three files atomically.
 */
export async function countShard(task: CountTask): Promise<ShardStats> {
  const { chunk, options, workdir } = task;
  const warnings = emptyWarnings();
  const ids: string[] = [];
  const tokens: number[] = [];
  const ordinals: number[] = [];
  const lengths: number[] = [];
  const terms: number[] = [];
  const counts: number[] = [];
  let keptTokens = 0;
  parseChunkWith(chunk, options, warnings, tokenHash(options), (doc) => {
    const tc = countsOfHashes(keptHashes(doc.tokens), options.shingleSize);
    ids.push(doc.id);
    tokens.push(doc.tokens.length);
    ordinals.push(doc.ordinal);
    lengths.push(tc.terms.length);
    keptTokens += tc.kept;
    for (let i = 0; i < tc.terms.length; i++) {
      terms.push(tc.terms[i]);
      counts.push(tc.counts[i]);
    }
  });
  if (ids.length !== chunk.docCount) {
    throw new InputError(displayName(chunk.file), chunk.firstLine, `chunk has ${chunk.docCount} <doc> lines but ${ids.length} documents were read`);
  }
  const shardCounts: ShardCounts = {
    ordinals: Uint32Array.from(ordinals),
    lengths: Uint32Array.from(lengths),
    terms: Float64Array.from(terms),
    counts: Uint32Array.from(counts),
  };
  const shardDocs: ShardDocs = { ids, tokens: Uint32Array.from(tokens) };
  const shardDf = documentFrequencies(shardCounts.terms);
  await writeAtomic(shardFile(workdir, chunk.index, "counts"), encodeRecords([shardCounts], 1));
  await writeAtomic(shardFile(workdir, chunk.index, "docs"), encodeRecords([shardDocs], 1));
  await writeAtomic(shardFile(workdir, chunk.index, "df"), encodeRecords([shardDf], 1));
  const stats: ShardStats = { docs: ids.length, tokens: tokens.reduce((a, b) => a + b, 0), keptTokens, warnings };
  await writeMarker(workdir, `count-${shardName(chunk.index)}`, stats);
  return stats;
}
