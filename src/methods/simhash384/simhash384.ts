import type { NormalizeOptions } from "../../core/options.js";
import { stringToken } from "../../corpus/vertical.js";
import { hash } from "node:crypto";
import { normalizeToken } from "../../features/normalize.js";
import { VertdupError } from "../../core/errors.js";
import { forEachKeyGroup } from "../sets/key-groups.js";
import { EdgeList, type DuplicateGraph } from "../../clusters/duplicate-graph.js";
import { ALL_PAIRS_BUCKET, BucketCandidates } from "../sets/bucket-candidates.js";
import { featuredDocs, firstOfByKeys, leadersOf } from "../sets/first-of.js";
import { scanShard, type ChunkTask, type ShardBase } from "../sets/shard-scan.js";
import { concatU32 } from "../../util/typed-arrays.js";
import { SIMHASH_BITS, SIMHASH_WORDS } from "../../core/method-options.js";
import { popcount32 } from "../../pleb/hamming.js";

/**
 * SHA-384 digests of tokens as 12 big-endian words each, in one typed array, remembered up to
 * a bound (frequent tokens recur in every document).
 */
export class TokenDigests {
  private readonly slots = new Map<string, number>();
  readonly words: Uint32Array;

  constructor(private readonly limit = 200_000) {
    this.words = new Uint32Array(limit * SIMHASH_WORDS);
  }

  /** Where the token's digest starts in `words` (valid until the next call). */
  at(token: string): number {
    let at = this.slots.get(token);
    if (at === undefined) {
      if (this.slots.size >= this.limit) this.slots.clear();
      const bytes = hash("sha384", token, "buffer");
      at = this.slots.size * SIMHASH_WORDS;
      for (let w = 0; w < SIMHASH_WORDS; w++) this.words[at + w] = bytes.readUInt32BE(4 * w);
      this.slots.set(token, at);
    }
    return at;
  }
}

/** Bit planes of 384 counters (plane k holds bit k of each), enough for any 32-bit count. */
const planes = new Uint32Array(32 * SIMHASH_WORDS);

/**
 * The 000 method B fingerprint: every kept token's SHA-384 adds +1 to the bits it has set
 * and −1 to the others; a bit of the simhash is set when its sum is positive. Bit i is bit
 * 31 − (i mod 32) of word ⌊i/32⌋ (the digest's big-endian order). Null without kept tokens.
 *
 * Computed bit-sliced, 32 bits per operation: with C kept tokens and P_i of them setting bit
 * i, the sum is 2·P_i − C, positive exactly when P_i ≥ ⌊C/2⌋ + 1. The P_i are counters in bit
 * planes (a token seen c times adds its digest at the planes of c's set bits, carrying up),
 * compared with that bound plane by plane from the top.
 */
export function simhash384(tokens: readonly string[], opts: NormalizeOptions, digests = new TokenDigests(1024)): Uint32Array | null {
  const counts = new Map<string, number>();
  for (const t of tokens) {
    const norm = normalizeToken(t, opts);
    if (norm !== null) counts.set(norm, (counts.get(norm) ?? 0) + 1);
  }
  if (counts.size === 0) return null;
  let total = 0;
  for (const c of counts.values()) total += c;
  const used = 32 - Math.clz32(total);
  planes.fill(0, 0, used * SIMHASH_WORDS);
  const words = digests.words;
  for (const [token, count] of counts) {
    const d = digests.at(token);
    for (let k = 0, c = count; c !== 0; k++, c >>>= 1) {
      if ((c & 1) === 0) continue;
      for (let w = 0; w < SIMHASH_WORDS; w++) {
        let carry = words[d + w];
        for (let j = k; carry !== 0; j++) {
          const at = j * SIMHASH_WORDS + w;
          const next = planes[at] & carry;
          planes[at] ^= carry;
          carry = next;
        }
      }
    }
  }
  const bound = Math.floor(total / 2) + 1;
  const out = new Uint32Array(SIMHASH_WORDS);
  for (let w = 0; w < SIMHASH_WORDS; w++) {
    let greater = 0;
    let equal = 0xffffffff;
    for (let k = used - 1; k >= 0; k--) {
      const p = planes[k * SIMHASH_WORDS + w];
      if ((bound >>> k) & 1) equal &= p;
      else {
        greater |= equal & p;
        equal &= ~p;
      }
    }
    out[w] = greater | equal;
  }
  return out;
}

/** Differing bits of two simhashes stored at `a` and `b` (in words) of `words`. */
export function simhashDistance(words: Uint32Array, a: number, b: number): number {
  let d = 0;
  for (let w = 0; w < SIMHASH_WORDS; w++) {
    d += popcount32(words[a + w] ^ words[b + w]);
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
  const base = scanShard(task.chunk, task.options, stringToken, (doc) => {
    const s = simhash384(doc.tokens, task.options, digestCache);
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
export function simhashGraph(shards: readonly SimhashShard[], documents: number, maxDistance: number, allPairsBucket = ALL_PAIRS_BUCKET, part?: Uint32Array): { graph: DuplicateGraph; candidates: number } {
  if (!Number.isInteger(maxDistance) || maxDistance < 0 || maxDistance >= SIMHASH_WORDS) {
    throw new VertdupError(`--max-distance must be an integer from 0 to ${SIMHASH_WORDS - 1} (the 12-block pigeonhole), got ${maxDistance}`);
  }
  const words = concatU32(shards.map((s) => s.simhashes));
  const docs = featuredDocs(shards);
  const same = (a: number, b: number) => simhashDistance(words, a * SIMHASH_WORDS, b * SIMHASH_WORDS) === 0;
  const wordOf = (w: number) => Uint32Array.from(docs, (d) => words[d * SIMHASH_WORDS + w]);
  const firstOf = firstOfByKeys(documents, docs, wordOf(0), wordOf(1), same, part);
  const leaders = leadersOf(firstOf);
  const buckets = new BucketCandidates(allPairsBucket, part);
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
  return { graph: { documents, firstOf, edges }, candidates: candidates.length / 2 };
}
