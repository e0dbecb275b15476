import { stringToken } from "../corpus/vertical.js";
import { createHash } from "node:crypto";
import { normalizeToken, type NormalizeOptions } from "../features/normalize.js";
import { VertdupError } from "../util/errors.js";
import { forEachKeyGroup } from "./key-groups.js";
import { EdgeList, type DuplicateGraph } from "../clusters/duplicate-graph.js";
import { ALL_PAIRS_BUCKET, BucketCandidates } from "./bucket-candidates.js";
import { featuredDocs, firstOfByKeys, leadersOf } from "./first-of.js";
import { scanChunk, type ChunkTask, type ShardBase } from "./shard-scan.js";
import { concatU32 } from "../util/typed-arrays.js";

export const SIMHASH_BITS = 384;
/** 12 blocks of 32 bits: the unit of the pigeonhole candidate search. */
export const SIMHASH_WORDS = SIMHASH_BITS / 32;

/**
 * Each token's SHA-384 as ±1 per bit (bit i: +1 when set), remembered up to a bound (frequent
 * tokens recur in every document): adding a token to the sums is then one pass without bit
 * extraction.
 */
export class TokenSigns {
  private readonly cache = new Map<string, Int8Array>();

  constructor(private readonly limit = 32_768) {}

  get(token: string): Int8Array {
    let signs = this.cache.get(token);
    if (signs === undefined) {
      if (this.cache.size >= this.limit) this.cache.clear();
      const d = createHash("sha384").update(token).digest();
      signs = new Int8Array(SIMHASH_BITS);
      for (let i = 0; i < SIMHASH_BITS; i++) signs[i] = (d[i >> 3] >> (7 - (i & 7))) & 1 ? 1 : -1;
      this.cache.set(token, signs);
    }
    return signs;
  }
}

/**
 * The 000 method B fingerprint: every kept token's SHA-384 adds +1 to the bits it has set
 * and −1 to the others; a bit of the simhash is set when its sum is positive. Bit i is bit
 * 31 − (i mod 32) of word ⌊i/32⌋ (the digest's big-endian order). Null without kept tokens.
 */
export function simhash384(tokens: readonly string[], opts: NormalizeOptions, signsOf = new TokenSigns()): Uint32Array | null {
  const counts = new Map<string, number>();
  for (const t of tokens) {
    const norm = normalizeToken(t, opts);
    if (norm !== null) counts.set(norm, (counts.get(norm) ?? 0) + 1);
  }
  if (counts.size === 0) return null;
  const sums = new Int32Array(SIMHASH_BITS);
  for (const [token, c] of counts) {
    const signs = signsOf.get(token);
    for (let i = 0; i < SIMHASH_BITS; i++) sums[i] += c * signs[i];
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

const signCache = new TokenSigns();

/** Chunk task: simhashes of the chunk's documents. */
export function simhashShard(task: ChunkTask): SimhashShard {
  const simhashes = new Uint32Array(task.chunk.docCount * SIMHASH_WORDS);
  const empty = new Uint8Array(task.chunk.docCount);
  let i = 0;
  const base = scanChunk(task.chunk, task.options, stringToken, (doc) => {
    const s = simhash384(doc.tokens, task.options, signCache);
    if (s === null) empty[i] = 1;
    else simhashes.set(s, i * SIMHASH_WORDS);
    i++;
  });
  return { ...base, simhashes, empty };
}

/**
 * Identical simhashes form one identity group; edges join group leaders whose simhashes differ
 * in at most `maxDistance` bits. Such leaders differ in at most `maxDistance` of the 12
 * blocks, so while maxDistance < 12 they share a block (pigeonhole): the candidates are the
 * leaders sharing a block's value, every pair of a bucket of at most `allPairsBucket` leaders
 * and a bounded set in a larger one (bucket-candidates.ts).
 */
export function simhashGraph(shards: readonly SimhashShard[], documents: number, maxDistance: number, allPairsBucket = ALL_PAIRS_BUCKET): { graph: DuplicateGraph; candidates: number } {
  if (!Number.isInteger(maxDistance) || maxDistance < 0 || maxDistance >= SIMHASH_WORDS) {
    throw new VertdupError(`--max-distance must be an integer from 0 to ${SIMHASH_WORDS - 1} (the 12-block pigeonhole), got ${maxDistance}`);
  }
  const words = concatU32(shards.map((s) => s.simhashes));
  const docs = featuredDocs(shards);
  const same = (a: number, b: number) => simhashDistance(words, a * SIMHASH_WORDS, b * SIMHASH_WORDS) === 0;
  const wordOf = (w: number) => Uint32Array.from(docs, (d) => words[d * SIMHASH_WORDS + w]);
  const firstOf = firstOfByKeys(documents, docs, wordOf(0), wordOf(1), same);
  const leaders = leadersOf(firstOf);
  const buckets = new BucketCandidates(allPairsBucket);
  const keys = new Uint32Array(leaders.length);
  for (let block = 0; block < SIMHASH_WORDS; block++) {
    for (let i = 0; i < leaders.length; i++) keys[i] = words[leaders[i] * SIMHASH_WORDS + block];
    forEachKeyGroup(keys, leaders, (group, from, to) => buckets.addBucket(group, from, to));
  }
  const candidates = buckets.sorted();
  const edges = new EdgeList();
  for (let k = 0; k < candidates.length; k += 2) {
    const d = simhashDistance(words, candidates[k] * SIMHASH_WORDS, candidates[k + 1] * SIMHASH_WORDS);
    if (d <= maxDistance) edges.push(candidates[k], candidates[k + 1], 1 - d / SIMHASH_BITS);
  }
  const similarity = (a: number, b: number) => 1 - simhashDistance(words, a * SIMHASH_WORDS, b * SIMHASH_WORDS) / SIMHASH_BITS;
  return { graph: { documents, firstOf, edges, similarity }, candidates: candidates.length / 2 };
}
