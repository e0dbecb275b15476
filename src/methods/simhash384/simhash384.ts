import type { NormalizeOptions } from "../../core/options.js";
import type { TokenReader } from "../../corpus/vertical.js";
import { hash } from "node:crypto";
import { normalizeToken } from "../../features/normalize.js";
import { VertdupError } from "../../core/errors.js";
import { forEachKeyGroup } from "../sets/key-groups.js";
import { EdgeList, type DuplicateGraph } from "../../clusters/duplicate-graph.js";
import { ALL_PAIRS_BUCKET, BucketCandidates } from "../sets/bucket-candidates.js";
import { featuredDocs, firstOfByKeys, leadersOf } from "../sets/first-of.js";
import { scanShard, type ChunkTask, type ShardBase } from "../sets/shard-scan.js";
import { concatU32, growableI32 } from "../../util/typed-arrays.js";
import { NumberMap } from "../../util/number-map.js";
import { DROPPED, TokenHasher } from "../../features/terms.js";
import { hashString } from "../../features/hash.js";
import { SIMHASH_BITS, SIMHASH_WORDS } from "../../core/method-options.js";
import { popcount32 } from "../../pleb/hamming.js";

/**
 * The 000 method B fingerprint of documents: every kept token's SHA-384 adds +1 to the bits it
 * has set and −1 to the others; a bit of the simhash is set when its sum is positive. Bit i is
 * bit 31 − (i mod 32) of word ⌊i/32⌋ (the digest's big-endian order).
 *
 * Terms are known by their 53-bit hash (terms.ts), which the byte-level `TokenHasher` gives
 * without making a string: a term's digest is computed once, when the hash is first seen, and
 * kept in one typed array (frequent terms recur in every document) until `limit` terms are
 * held; the cache is then emptied, between documents only, so a document's slots stay valid.
 *
 * Computed bit-sliced, 32 bits per operation: with C kept tokens and P_i of them setting bit
 * i, the sum is 2·P_i − C, positive exactly when P_i ≥ ⌊C/2⌋ + 1. The P_i are counters in bit
 * planes (plane k holds bit k of each), compared with that bound plane by plane from the top.
 *
 * @example
 *   const s = new Simhasher(NORM);
 *   s.of(["Praha", "je", "Praha"].map((t) => s.slotOfToken(t))); // 12 words, or null
 */
export class Simhasher {
  private readonly slots: NumberMap;
  // Int32, not Uint32: a word ≥ 2^31 read from a Uint32Array is a heap double in V8.
  private readonly digests = growableI32(1 << 16);
  /** A document's kept slots, as offsets in `digests`. */
  private readonly kept = growableI32(1024);
  /** Bit planes of 384 counters, enough for any 32-bit count. */
  private readonly planes = new Int32Array(32 * SIMHASH_WORDS);
  // A direct-mapped cache in front of `slots`, small enough for the CPU's cache: the frequent
  // terms, most tokens, are found there without a random read of the large table.
  private readonly recentKeys = new Float64Array(RECENT).fill(-1);
  private readonly recentSlots = new Int32Array(RECENT);

  constructor(
    private readonly opts: NormalizeOptions,
    private readonly limit = 500_000,
  ) {
    this.slots = new NumberMap(limit);
  }

  /** The slot of the term whose hash is `key`, or −1 before `add`. */
  find(key: number): number {
    const r = key & (RECENT - 1);
    if (this.recentKeys[r] === key) return this.recentSlots[r];
    const at = this.slots.get(key);
    if (at === undefined) return -1;
    this.recentKeys[r] = key;
    this.recentSlots[r] = at;
    return at;
  }

  /** Gives the term `term`, whose hash is `key`, a slot with its digest. */
  add(key: number, term: string): number {
    const at = this.slots.size;
    const bytes = hash("sha384", term, "buffer");
    const words = this.digests.reserve(SIMHASH_WORDS);
    for (let w = 0; w < SIMHASH_WORDS; w++) words[this.digests.length++] = bytes.readInt32BE(4 * w);
    this.slots.set(key, at);
    return at;
  }

  /** The slot of a token read as a string, or DROPPED (`termHash`'s rule). */
  slotOfToken(token: string): number {
    const norm = normalizeToken(token, this.opts);
    if (norm === null) return DROPPED;
    const key = hashString(norm);
    const at = this.find(key);
    return at >= 0 ? at : this.add(key, norm);
  }

  /** A token reader giving each token's slot, or DROPPED, from its bytes. */
  reader(): TokenReader<number> {
    const hasher = new TokenHasher(this.opts);
    return (bytes, start, end) => {
      const key = hasher.hashWord(bytes, start, end);
      if (key === DROPPED) return DROPPED;
      const at = this.find(key);
      return at >= 0 ? at : this.add(key, normalizeToken(bytes.toString("utf8", start, hasher.end), this.opts) as string);
    };
  }

  /** The simhash of a document's token slots (DROPPED ones left out); null without kept tokens. */
  of(tokens: readonly number[]): Uint32Array | null {
    const kept = this.kept.reserve(tokens.length);
    let n = 0;
    for (const slot of tokens) if (slot !== DROPPED) kept[n++] = slot * SIMHASH_WORDS;
    const out = n === 0 ? null : this.sum(kept, n);
    if (this.slots.size >= this.limit) {
      this.slots.clear();
      this.recentKeys.fill(-1);
      this.digests.length = 0;
    }
    return out;
  }

  /**
   * Sums the digests at `kept[0, n)` word by word: 16 digests at a time through a Harley–Seal
   * tree of carry-save adders (ones, twos, fours, eights; about 5 operations per digest and
   * word), whose sixteens join the bit planes at plane 4.
   */
  private sum(kept: Int32Array, n: number): Uint32Array {
    const planes = this.planes;
    const d = this.digests.values;
    const used = 32 - Math.clz32(n);
    planes.fill(0, 0, used * SIMHASH_WORDS);
    for (let w = 0; w < SIMHASH_WORDS; w++) {
      let ones = 0;
      let twos = 0;
      let fours = 0;
      let eights = 0;
      let i = 0;
      for (; i + 16 <= n; i += 16) {
        let a: number, b: number, u: number, twosA: number, twosB: number, foursA: number, foursB: number, eightsA: number;
        // CSA(high, low; x, y, z): u = x ^ y, high = (x & y) | (u & z), low = u ^ z.
        a = d[kept[i] + w]; b = d[kept[i + 1] + w]; u = ones ^ a; twosA = (ones & a) | (u & b); ones = u ^ b;
        a = d[kept[i + 2] + w]; b = d[kept[i + 3] + w]; u = ones ^ a; twosB = (ones & a) | (u & b); ones = u ^ b;
        u = twos ^ twosA; foursA = (twos & twosA) | (u & twosB); twos = u ^ twosB;
        a = d[kept[i + 4] + w]; b = d[kept[i + 5] + w]; u = ones ^ a; twosA = (ones & a) | (u & b); ones = u ^ b;
        a = d[kept[i + 6] + w]; b = d[kept[i + 7] + w]; u = ones ^ a; twosB = (ones & a) | (u & b); ones = u ^ b;
        u = twos ^ twosA; foursB = (twos & twosA) | (u & twosB); twos = u ^ twosB;
        u = fours ^ foursA; eightsA = (fours & foursA) | (u & foursB); fours = u ^ foursB;
        a = d[kept[i + 8] + w]; b = d[kept[i + 9] + w]; u = ones ^ a; twosA = (ones & a) | (u & b); ones = u ^ b;
        a = d[kept[i + 10] + w]; b = d[kept[i + 11] + w]; u = ones ^ a; twosB = (ones & a) | (u & b); ones = u ^ b;
        u = twos ^ twosA; foursA = (twos & twosA) | (u & twosB); twos = u ^ twosB;
        a = d[kept[i + 12] + w]; b = d[kept[i + 13] + w]; u = ones ^ a; twosA = (ones & a) | (u & b); ones = u ^ b;
        a = d[kept[i + 14] + w]; b = d[kept[i + 15] + w]; u = ones ^ a; twosB = (ones & a) | (u & b); ones = u ^ b;
        u = twos ^ twosA; foursB = (twos & twosA) | (u & twosB); twos = u ^ twosB;
        u = fours ^ foursA; const eightsB = (fours & foursA) | (u & foursB); fours = u ^ foursB;
        u = eights ^ eightsA;
        addAt(planes, 4, w, (eights & eightsA) | (u & eightsB));
        eights = u ^ eightsB;
      }
      for (; i < n; i++) addAt(planes, 0, w, d[kept[i] + w]);
      addAt(planes, 0, w, ones);
      addAt(planes, 1, w, twos);
      addAt(planes, 2, w, fours);
      addAt(planes, 3, w, eights);
    }
    const bound = Math.floor(n / 2) + 1;
    const out = new Uint32Array(SIMHASH_WORDS);
    for (let w = 0; w < SIMHASH_WORDS; w++) {
      let greater = 0;
      let equal = -1;
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
}

const RECENT = 1 << 16;

/** Adds the bits of `carry`, each worth 2^k, to the 32 counters of word `w` in the bit planes. */
function addAt(planes: Int32Array, k: number, w: number, carry: number): void {
  for (let at = k * SIMHASH_WORDS + w; carry !== 0; at += SIMHASH_WORDS) {
    const next = planes[at] & carry;
    planes[at] ^= carry;
    carry = next;
  }
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

/** One per thread: the digest cache outlives a chunk (frequent terms recur in every chunk). */
let simhasher: { key: string; of: Simhasher } | undefined;

/** Chunk task: simhashes of the chunk's documents. */
export function simhashShard(task: ChunkTask): SimhashShard {
  const opts = task.options;
  const key = `${opts.normalize} ${String(opts.lowercase)} ${String(opts.keepNumbers)}`;
  if (simhasher?.key !== key) simhasher = { key, of: new Simhasher(opts) };
  const hasher = simhasher.of;
  const simhashes = new Uint32Array(task.chunk.docCount * SIMHASH_WORDS);
  const empty = new Uint8Array(task.chunk.docCount);
  let i = 0;
  const base = scanShard(task.chunk, opts, hasher.reader(), (doc) => {
    const s = hasher.of(doc.tokens);
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
