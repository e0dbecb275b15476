import { type Chunk, emptyWarnings, scanChunk, type DocSink, type ReaderWarnings, type TokenRun } from "../corpus/vertical.js";
import type { TermOptions, ReaderOptions } from "../core/options.js";
import { chunkExtent, type StoredChunk } from "../corpus/chunker.js";
import { displayName } from "../corpus/open-input.js";
import { isChained, loadChunkBytes, placeChunk, type ChainedChunk } from "../corpus/chunk-chain.js";
import { encodeFrameParts, encodeRecords } from "../util/run-file.js";
import { dfFrames, type ShardDf } from "./df-pieces.js";
import { writeAtomicGroup } from "../util/atomic.js";
import { InputError } from "../core/errors.js";
import { hashSequence } from "./hash.js";
import { countInto, DROPPED, TokenHasher } from "./terms.js";
import { kernelDocumentFrequencies, TokenHashRuns } from "./token-hash-wasm.js";

import { COUNT_FILES, shardFile } from "../workdir/layout.js";
import { growableF64, growableU32 } from "../util/typed-arrays.js";

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
  /** With `--partition-attr`: each document's partition value. */
  parts?: string[];
}

export interface ShardStats {
  docs: number;
  tokens: number;
  keptTokens: number;
  warnings: ReaderWarnings;
}

/**
 * Document frequencies from the documents' distinct terms by sorting them (a hash table
 * of the shard's vocabulary was slower: one cache miss per term occurrence). Term hashes are
 * uniform, so a bucket sort by their top bits (one counting pass, one scatter, insertion
 * sorts of about one value per bucket) sorts them; it took half the time of a 6-pass radix
 * sort. Equal terms share a bucket and cost nothing to insert, so a frequent term does not
 * make a bucket quadratic. With `partial`, each entry is a partial document frequency of its
 * term (the shards' df merged by the vocabulary step), and those are summed instead.
 * `kernel`: false for the TypeScript loop alone.
 */
export function documentFrequencies(docTerms: Float64Array, partial?: Uint32Array, kernel = true): ShardDf {
  const n = docTerms.length;
  // At most 2^22 buckets (16 MiB of offsets): a larger input has a few values per bucket.
  let bits = 1;
  while (bits < 22 && 1 << bits < n) bits++;
  // In WebAssembly where there is a kernel: the same loops.
  const fromKernel = kernel ? kernelDocumentFrequencies(docTerms, bits, partial) : null;
  if (fromKernel !== null) return fromKernel;
  // Multiplying by a power of two is exact: bucket order is value order.
  const scale = 2 ** (bits - 53);
  const starts = new Uint32Array((1 << bits) + 1);
  for (let k = 0; k < n; k++) starts[Math.floor(docTerms[k] * scale) + 1]++;
  for (let b = 1; b < starts.length; b++) starts[b] += starts[b - 1];
  const fill = starts.slice();
  const sorted = new Float64Array(n);
  const weights = partial === undefined ? null : new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    const term = docTerms[k];
    const b = Math.floor(term * scale);
    // Insertion into the bucket's filled part, which ends at i.
    let i = fill[b]++;
    const from = starts[b];
    while (i > from && sorted[i - 1] > term) {
      sorted[i] = sorted[i - 1];
      if (weights !== null) weights[i] = weights[i - 1];
      i--;
    }
    sorted[i] = term;
    if (weights !== null) weights[i] = partial![k];
  }
  // Equal terms merged in place (m ≤ k: nothing is overwritten before it is read).
  const dfs = weights ?? new Uint32Array(n);
  let m = 0;
  for (let k = 0; k < n; k++) {
    const term = sorted[k];
    const df = weights === null ? 1 : weights[k];
    if (k === 0 || term !== sorted[m - 1]) {
      sorted[m] = term;
      dfs[m++] = df;
    } else dfs[m - 1] += df;
  }
  return { terms: sorted.slice(0, m), dfs: dfs.slice(0, m) };
}

export interface CountTask {
  workdir: string;
  /** Numbered by the coordinator (a planned range), or by the chain of chunks before it. */
  chunk: StoredChunk | ChainedChunk;
  options: ReaderOptions & TermOptions;
}

/**
 * Counts the terms of a chunk's documents as the parser reports them: kept token hashes go
 * to one reused buffer, and each document's distinct terms and counts straight to the
 * shard's arrays, so no list is made per document or token. Runs of token lines are hashed
 * by the WebAssembly kernel where there is one (the same hashes), the rest by `TokenHasher`.
 */
export class ShardCounter implements DocSink {
  readonly ids: string[] = [];
  readonly parts: string[] = [];
  readonly tokens = growableU32(1 << 10);
  readonly ordinals = growableU32(1 << 10);
  readonly lengths = growableU32(1 << 10);
  readonly terms = growableF64();
  readonly counts = growableU32();
  keptTokens = 0;
  private readonly hasher: TokenHasher;
  private kept: Float64Array;
  private keptLength = 0;
  private docTokens = 0;
  private shingled = new Float64Array(0);
  readonly tokenRun?: (bytes: Buffer, start: number, run: TokenRun) => void;
  private readonly runs: TokenHashRuns | null;

  /**
   * `chunk`: the bytes the parser will report, loaded into the WebAssembly kernel (valid
   * until the next chunk is loaded); null for the TypeScript loop alone.
   */
  constructor(private readonly options: TermOptions & Pick<ReaderOptions, "paragraphs">, chunk: Uint8Array | null) {
    this.hasher = new TokenHasher(options);
    const runs = (this.runs = chunk === null ? null : TokenHashRuns.load(chunk, options));
    // The kernel's room for a document's hashes (always enough) or a growing array.
    this.kept = runs?.kept ?? new Float64Array(1 << 12);
    if (runs !== null) {
      this.tokenRun = (_bytes, start, run) => {
        const length = runs.runs(start, this.keptLength, run);
        this.docTokens += run.tokens;
        this.keptLength = length;
      };
    }
  }

  /** chunkExtent of the chunk given to the constructor, its newlines counted by the kernel where it holds them. */
  extent(bytes: Buffer): { docCount: number; lines: number } {
    const runs = this.runs;
    return runs === null ? chunkExtent(bytes) : chunkExtent(bytes, () => runs.newlines());
  }

  open(ordinal: number, id: string, _line: number, part?: string): void {
    this.ids.push(id);
    if (part !== undefined) this.parts.push(part);
    this.ordinals.push(ordinal);
    this.keptLength = 0;
    this.docTokens = 0;
  }

  token(bytes: Buffer, start: number, end: number): void {
    this.keep(this.hasher.hashWord(bytes, start, end));
  }

  tokenAt(bytes: Buffer, start: number, limit: number): number {
    this.keep(this.hasher.hashWord(bytes, start, limit));
    return this.hasher.end;
  }

  private keep(h: number): void {
    this.docTokens++;
    if (h === DROPPED) return;
    if (this.keptLength === this.kept.length) {
      const grown = new Float64Array(2 * this.kept.length);
      grown.set(this.kept);
      this.kept = grown;
    }
    this.kept[this.keptLength++] = h;
  }

  close(): void {
    const k = this.options.shingleSize;
    const n = this.keptLength;
    let sequence = this.kept;
    let length = n;
    if (k > 1) {
      length = Math.max(0, n - k + 1);
      if (this.shingled.length < length) this.shingled = new Float64Array(this.kept.length);
      for (let i = 0; i < length; i++) this.shingled[i] = hashSequence(this.kept, i, k);
      sequence = this.shingled;
    }
    const found = k === 1 && this.runs !== null ? this.runs.countKept(length, this.terms, this.counts) : -1;
    this.lengths.push(found >= 0 ? found : countInto(sequence, 0, length, this.terms, this.counts));
    this.tokens.push(this.docTokens);
    this.keptTokens += n;
  }
}

/** Parses a chunk and counts its documents' terms (`kernel`: false for the TypeScript loop alone). */
export function countChunk(chunk: Chunk, options: ReaderOptions & TermOptions, warnings: ReaderWarnings, kernel = true): ShardCounter {
  const counter = new ShardCounter(options, kernel ? chunk.bytes : null);
  scanChunk(chunk, options, warnings, counter);
  return counter;
}

/** zstd level of the shard files, read back once or twice by later steps. */
const SHARD_LEVEL = -3;

// A worker's buffer for the chunks it reads from their files (nothing keeps their bytes).
const readBuffer = { bytes: new Uint8Array(0) };

/**
 * Pass 1 of the preparatory phase for one chunk: parse, normalise, count terms per
 * document and document frequencies, and write the shard's three files atomically; its
 * statistics go back to the executor, which leaves the marker.
 */
export async function countShard(task: CountTask): Promise<ShardStats> {
  const { options, workdir } = task;
  const warnings = emptyWarnings();
  const raw = loadChunkBytes(task.chunk, readBuffer);
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  // The bytes go into the kernel first, which then counts the newlines for the chain (inside
  // placeChunk, so that a failure there marks the chunk's link failed).
  let counter: ShardCounter | null = null;
  const measure = (b: Buffer) => (counter = new ShardCounter(options, b)).extent(b);
  const chunk = isChained(task.chunk) ? placeChunk(task.chunk, raw, measure) : task.chunk;
  counter ??= new ShardCounter(options, bytes);
  scanChunk({ ...chunk, bytes }, options, warnings, counter);
  const { ids } = counter;
  if (ids.length !== chunk.docCount) {
    throw new InputError(displayName(chunk.file), chunk.firstLine, `chunk has ${chunk.docCount} <doc> lines but ${ids.length} documents were read`);
  }
  const shardCounts: ShardCounts = {
    ordinals: counter.ordinals.view(),
    lengths: counter.lengths.view(),
    terms: counter.terms.view(),
    counts: counter.counts.view(),
  };
  const tokens = counter.tokens.view();
  const shardDocs: ShardDocs = options.partitionAttr === undefined ? { ids, tokens } : { ids, tokens, parts: counter.parts };
  const shardDf = documentFrequencies(shardCounts.terms);
  // Put in place without fsync: the executor makes them durable, batched with other shards'
  // (`unsynced` in count-step.ts), before the task's marker.
  await writeAtomicGroup(
    COUNT_FILES.map((kind) => ({
      path: shardFile(workdir, chunk.index, kind),
      data: kind === "counts" ? encodeRecords([shardCounts], SHARD_LEVEL) : kind === "docs" ? encodeRecords([shardDocs], SHARD_LEVEL) : encodeFrameParts(dfFrames(shardDf), SHARD_LEVEL),
    })),
    false,
  );
  return { docs: ids.length, tokens: tokens.reduce((a, b) => a + b, 0), keptTokens: counter.keptTokens, warnings };
}
