import { stringToken } from "../corpus/vertical.js";
import { createHash } from "node:crypto";
import { normalizeToken, type NormalizeOptions } from "../features/normalize.js";
import { VertdupError } from "../util/errors.js";
import { forEachKeyGroup } from "./key-groups.js";
import { PairList } from "./pair-list.js";
import { scanChunk, type ChunkTask, type ShardBase } from "./shard-scan.js";
import { concatU32 } from "../util/typed-arrays.js";

export const SIMHASH_BITS = 384;
/** 12 blocks of 32 bits: the unit of the pigeonhole candidate search. */
export const SIMHASH_WORDS = SIMHASH_BITS / 32;

/** SHA-384 digests of tokens, remembered up to a bound (frequent tokens recur in every document). */
export class TokenDigests {
  private readonly cache = new Map<string, Buffer>();

  constructor(private readonly limit = 200_000) {}

  get(token: string): Buffer {
    let d = this.cache.get(token);
    if (d === undefined) {
      if (this.cache.size >= this.limit) this.cache.clear();
      d = createHash("sha384").update(token).digest();
      this.cache.set(token, d);
    }
    return d;
  }
}

/**
 * The 000 method B fingerprint: every kept token's SHA-384 adds +1 to the bits it has set
 * and −1 to the others; a bit of the simhash is set when its sum is positive. Bit i is bit
 * 31 − (i mod 32) of word ⌊i/32⌋ (the digest's big-endian order). Null without kept tokens.
 */
export function simhash384(tokens: readonly string[], opts: NormalizeOptions, digests = new TokenDigests()): Uint32Array | null {
  const counts = new Map<string, number>();
  for (const t of tokens) {
    const norm = normalizeToken(t, opts);
    if (norm !== null) counts.set(norm, (counts.get(norm) ?? 0) + 1);
  }
  if (counts.size === 0) return null;
  const sums = new Int32Array(SIMHASH_BITS);
  for (const [token, c] of counts) {
    const d = digests.get(token);
    for (let byte = 0; byte < SIMHASH_BITS / 8; byte++) {
      const v = d[byte];
      for (let bit = 0; bit < 8; bit++) sums[byte * 8 + bit] += (v >> (7 - bit)) & 1 ? c : -c;
    }
  }
  const out = new Uint32Array(SIMHASH_WORDS);
  for (let i = 0; i < SIMHASH_BITS; i++) if (sums[i] > 0) out[i >> 5] |= 1 << (31 - (i & 31));
  return out;
}

/** Differing bits of two simhashes stored at `a` and `b` (in words) of `words`. */
export function simhashDistance(words: Uint32Array, a: number, b: number): number {
  let d = 0;
  for (let w = 0; w < SIMHASH_WORDS; w++) {
    let x = words[a + w] ^ words[b + w];
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    d += (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
  }
  return d;
}

export interface SimhashShard extends ShardBase {
  /** 12 words per document (zeros for a document without kept tokens). */
  simhashes: Uint32Array;
  empty: Uint8Array;
}

const digestCache = new TokenDigests();

/** Chunk task: simhashes of the chunk's documents. */
export function simhashShard(task: ChunkTask): SimhashShard {
  const simhashes = new Uint32Array(task.chunk.docCount * SIMHASH_WORDS);
  const empty = new Uint8Array(task.chunk.docCount);
  let i = 0;
  const base = scanChunk(task.chunk, task.options, stringToken, (doc) => {
    const s = simhash384(doc.tokens, task.options, digestCache);
    if (s === null) empty[i] = 1;
    else simhashes.set(s, i * SIMHASH_WORDS);
    i++;
  });
  return { ...base, simhashes, empty };
}

/**
 * Every pair of documents whose simhashes differ in at most `maxDistance` bits. Such a pair
 * differs in at most `maxDistance` of the 12 blocks, so while maxDistance < 12 it shares at
 * least one block (pigeonhole): grouping documents by each block finds every pair. A pair is
 * checked only in the first block it shares, so each is checked once.
 */
export function simhashPairs(shards: readonly SimhashShard[], documents: number, maxDistance: number): PairList {
  if (!Number.isInteger(maxDistance) || maxDistance < 0 || maxDistance >= SIMHASH_WORDS) {
    throw new VertdupError(`--max-distance must be an integer from 0 to ${SIMHASH_WORDS - 1} (the 12-block pigeonhole), got ${maxDistance}`);
  }
  const words = concatU32(shards.map((s) => s.simhashes));
  const members: number[] = [];
  for (const s of shards) for (let i = 0; i < s.empty.length; i++) if (!s.empty[i]) members.push(s.firstDoc + i);
  const docs = Uint32Array.from(members);
  const pairs = new PairList(documents);
  const keys = new Uint32Array(docs.length);
  for (let block = 0; block < SIMHASH_WORDS; block++) {
    for (let i = 0; i < docs.length; i++) keys[i] = words[docs[i] * SIMHASH_WORDS + block];
    forEachKeyGroup(keys, docs, (group, from, to) => {
      for (let p = from; p < to; p++) {
        const a = group[p] * SIMHASH_WORDS;
        next: for (let q = p + 1; q < to; q++) {
          const b = group[q] * SIMHASH_WORDS;
          for (let earlier = 0; earlier < block; earlier++) if (words[a + earlier] === words[b + earlier]) continue next;
          const d = simhashDistance(words, a, b);
          if (d <= maxDistance) pairs.add(group[p], group[q], 1 - d / SIMHASH_BITS);
        }
      }
    });
  }
  return pairs;
}
