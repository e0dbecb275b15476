import type { NormalizeOptions } from "../core/options.js";
/**
 * The count pass's hot loops in WebAssembly (token-hash.wat), with the results of the
 * TypeScript ones, so the outputs are identical: runs of token lines hashed from the chunk's
 * UTF-8 bytes with the term hash of `TokenHasher.hashWord` (two MurmurHash3 lanes per UTF-16
 * code unit), any line it leaves (tags, empty lines, tokens for the string path, errors)
 * going on to the TypeScript parser; each document's term counts (`countInto`); the shard's
 * document frequencies (`documentFrequencies`). In TypeScript the line scan and the hash
 * alone took half of the pass's CPU time (docs/PERFORMANCE.md "Target 2, session 10").
 */

import type { TokenRun } from "../corpus/vertical.js";
import { WasmKernel, type KernelStatus } from "../util/wasm-kernel.js";
import type { GrowableArray } from "../util/typed-arrays.js";

import { twoByteTable } from "./terms.js";
import { wasm } from "./token-hash.wat.js";

const tokenHashKernel = new WasmKernel("token-hash", wasm);

/** On the coordinator, before the count pass: its status for the manifest (a fallback is told once through `warn`). */
export function tokenHashKernelStatus(warn: (message: string) => void): KernelStatus {
  return tokenHashKernel.report(warn);
}

const PAGE = 65536;
/** Where `count` writes a document's distinct terms and their counts (token-hash.wat). */
const COUNT_TERMS = 0x182000;
const COUNT_COUNTS = 0x202000;
/** The most values `count` takes (its table has 2^17 slots). */
const COUNT_LIMIT = 1 << 16;
/** Where the chunk's bytes start in the kernel's memory (after the results, the 2-byte table and `count`'s table). */
const INPUT = 0x242000;
/**
 * The largest chunk the kernel takes: its memory holds 5 bytes per byte of chunk (the chunk,
 * room for its hashes). Larger chunks (`--chunk-size` above 16 MiB) take the TypeScript loop.
 */
const MAX_CHUNK = 16 << 20;
/** The most elements a run keeps open (its stack, at byte 4224 = int 1056 of the results). */
const OPEN_LIMIT = 64;
const OPENED = 1056;

interface TokenHashExports {
  run: (pos: number, n: number, out: number, flags: number) => number;
  count: (seq: number, n: number, size: number) => number;
  newlines: (pos: number, end: number) => number;
  df: (terms: number, n: number, bits: number, starts: number, fill: number, sorted: number, dfs: number, weights: number) => number;
}

/** The kernel's memory of this thread, replaced by a larger one when a chunk does not fit. */
interface Instance {
  exports: TokenHashExports;
  bytes: Uint8Array;
  results: Int32Array;
  terms: Float64Array;
  counts: Uint32Array;
  /** The twoByteTable in its memory (one per normalisation and lowercasing). */
  table: Uint16Array | null;
}

let instance: Instance | null = null;

/**
 * One chunk's bytes in the kernel's memory, followed by room for one hash per two bytes of
 * it: each kept token takes at least two (a character and its newline), so a document's
 * hashes always fit.
 */
export class TokenHashRuns {
  /** Room for the kept hashes of the open document (`runs` appends to them). */
  readonly kept: Float64Array;
  private readonly flags: number;

  private constructor(
    private readonly on: Instance,
    private readonly keptByte: number,
    private readonly length: number,
    opts: NormalizeOptions & { paragraphs?: boolean },
  ) {
    this.flags = (opts.lowercase ? 1 : 0) | (opts.keepNumbers ? 2 : 0) | (opts.paragraphs === true ? 4 : 0);
    this.kept = new Float64Array(on.bytes.buffer, keptByte, Math.floor(length / 2) + 1);
  }

  /** The kernel loaded with `chunk`, or null where the module is unavailable or the chunk too large. */
  static load(chunk: Uint8Array, opts: NormalizeOptions & { paragraphs?: boolean }): TokenHashRuns | null {
    if (chunk.length > MAX_CHUNK || tokenHashKernel.module() === null) return null;
    const keptByte = INPUT + Math.ceil(chunk.length / 8) * 8;
    const need = keptByte + 8 * (Math.floor(chunk.length / 2) + 1);
    if (instance === null || instance.bytes.length < need) {
      const memory = tokenHashKernel.memory(Math.ceil(need / PAGE));
      const exports = tokenHashKernel.instantiate(memory) as unknown as TokenHashExports;
      instance = {
        exports,
        bytes: new Uint8Array(memory.buffer),
        results: new Int32Array(memory.buffer, 0, OPENED + 2 * OPEN_LIMIT),
        terms: new Float64Array(memory.buffer, COUNT_TERMS, COUNT_LIMIT),
        counts: new Uint32Array(memory.buffer, COUNT_COUNTS, COUNT_LIMIT),
        table: null,
      };
    }
    const table = twoByteTable(opts);
    if (instance.table !== table) {
      new Uint16Array(instance.bytes.buffer, 64, table.length).set(table);
      instance.table = table;
    }
    instance.bytes.set(chunk, INPUT);
    return new TokenHashRuns(instance, keptByte, chunk.length, opts);
  }

  /**
   * Hashes the token lines of the loaded chunk from `start` (and reads the structure lines
   * the kernel takes, see `DocSink.tokenRun`), appending the kept hashes to `kept` from
   * `keptLength`: returns the new length of `kept`;
   * `run` says where it stopped, how many lines and token lines it read and what it left open.
   */
  runs(start: number, keptLength: number, run: TokenRun): number {
    const { exports, results } = this.on;
    run.end = exports.run(INPUT + start, INPUT + this.length, this.keptByte + 8 * keptLength, this.flags) - INPUT;
    run.lines = results[0];
    run.tokens = results[2];
    const opened = results[3];
    run.opened.length = 2 * opened;
    for (let k = 0; k < 2 * opened; k++) run.opened[k] = results[OPENED + k] - INPUT;
    return (results[1] - this.keptByte) / 8;
  }

  /** The newlines of the loaded chunk (`countByte(chunk, 10)`). */
  newlines(): number {
    return this.on.exports.newlines(INPUT, INPUT + this.length);
  }

  /**
   * `countInto(kept, 0, n, terms, counts)` (the same terms in the same order) for documents of
   * up to 2^16 kept hashes; returns how many terms it appended, or −1 for a longer document.
   */
  countKept(n: number, terms: GrowableArray<Float64Array>, counts: GrowableArray<Uint32Array>): number {
    if (n > COUNT_LIMIT) return -1;
    let size = 16;
    while (size < n * 2) size *= 2;
    const { exports, terms: found, counts: foundCounts } = this.on;
    const m = exports.count(this.keptByte, n, size);
    terms.append(found.subarray(0, m));
    counts.append(foundCounts.subarray(0, m));
    return m;
  }
}

/** The df kernel's instance of this thread (a memory of its own), replaced by a larger one when a shard does not fit. */
let dfInstance: { exports: TokenHashExports; buffer: ArrayBuffer } | null = null;

/**
 * `documentFrequencies(terms, partial)` (count-shard.ts) by the kernel, bucket-sorted on the
 * same top `bits` bits: the same distinct terms, sorted, and their numbers (or the sums of
 * their `partial` dfs); null where the module is unavailable.
 */
export function kernelDocumentFrequencies(terms: Float64Array, bits: number, partial?: Uint32Array): { terms: Float64Array; dfs: Uint32Array } | null {
  if (tokenHashKernel.module() === null) return null;
  const n = terms.length;
  const buckets = 2 ** bits + 1;
  const sorted = 64 + 8 * n;
  const dfs = sorted + 8 * n;
  const starts = dfs + 4 * n;
  const fill = starts + 4 * buckets;
  const weights = partial === undefined ? 0 : fill + 4 * buckets;
  const need = fill + 4 * buckets + (partial === undefined ? 0 : 4 * n);
  if (dfInstance === null || dfInstance.buffer.byteLength < need) {
    const memory = tokenHashKernel.memory(Math.ceil((need * 1.25) / PAGE));
    dfInstance = { exports: tokenHashKernel.instantiate(memory) as unknown as TokenHashExports, buffer: memory.buffer };
  }
  const { exports, buffer } = dfInstance;
  new Float64Array(buffer, 64, n).set(terms);
  if (partial !== undefined) new Uint32Array(buffer, weights, n).set(partial);
  const m = exports.df(64, n, bits, starts, fill, sorted, dfs, weights);
  return { terms: new Float64Array(buffer, sorted, m).slice(), dfs: new Uint32Array(buffer, dfs, m).slice() };
}
