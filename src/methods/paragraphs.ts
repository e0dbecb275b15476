import { hashSequence } from "../features/hash.js";
import { keptHashes, termHash, tokenHash } from "../features/terms.js";
import type { NormalizeOptions } from "../features/normalize.js";
import type { Doc, VerticalDoc } from "../corpus/vertical.js";
import { NumberMap } from "../util/number-map.js";
import { jaccardOfCounts, sortedJaccard, sortedSet } from "./jaccard.js";
import { PairList } from "./pair-list.js";
import { scanChunk, type ChunkTask, type ShardBase } from "./shard-scan.js";

/** A document's paragraph fingerprints, split into long and short paragraphs, each set sorted. */
export interface ParagraphSets {
  long: Float64Array;
  short: Float64Array;
}

/**
 * The 000 method A view of a document: one fingerprint (a hash of the normalised token
 * stream) per `<p>`; paragraphs with fewer than `shortTokens` kept tokens are short, those
 * without any kept token are ignored. A document without `<p>` is one paragraph.
 */
export function paragraphSets(doc: VerticalDoc, shortTokens: number, opts: NormalizeOptions): ParagraphSets {
  return paragraphSetsOfHashes({ ...doc, tokens: doc.tokens.map((t) => termHash(t, opts)) }, shortTokens);
}

/** `paragraphSets` of a document whose tokens are term hashes (DROPPED for dropped ones). */
export function paragraphSetsOfHashes(doc: Doc<number>, shortTokens: number): ParagraphSets {
  const ranges = doc.paragraphs !== undefined && doc.paragraphs.length > 0 ? doc.paragraphs : [0, doc.tokens.length];
  const long: number[] = [];
  const short: number[] = [];
  for (let r = 0; r < ranges.length; r += 2) {
    const hashes = keptHashes(doc.tokens.slice(ranges[r], ranges[r + 1]));
    if (hashes.length === 0) continue;
    (hashes.length < shortTokens ? short : long).push(hashSequence(hashes, 0, hashes.length));
  }
  return { long: sortedSet(long), short: sortedSet(short) };
}

/** Sets of many documents, flat: document i's set follows those of documents < i. */
export interface FlatSets {
  lengths: Uint32Array;
  values: Float64Array;
}

function flatten(sets: readonly Float64Array[]): FlatSets {
  const values = new Float64Array(sets.reduce((n, s) => n + s.length, 0));
  let at = 0;
  for (const s of sets) {
    values.set(s, at);
    at += s.length;
  }
  return { lengths: Uint32Array.from(sets, (s) => s.length), values };
}

export interface ParagraphShard extends ShardBase {
  long: FlatSets;
  short: FlatSets;
}

/** Chunk task: paragraph fingerprint sets of the chunk's documents. */
export function paragraphShard(task: ChunkTask): ParagraphShard {
  const long: Float64Array[] = [];
  const short: Float64Array[] = [];
  const base = scanChunk(task.chunk, { ...task.options, paragraphs: true }, tokenHash(task.options), (doc) => {
    const sets = paragraphSetsOfHashes(doc, task.options.shortTokens);
    long.push(sets.long);
    short.push(sets.short);
  });
  return { ...base, long: flatten(long), short: flatten(short) };
}

/** The sets of all documents of the corpus, addressable by ordinal. */
export class CorpusSets {
  readonly starts: Float64Array;
  readonly values: Float64Array;

  constructor(parts: readonly FlatSets[]) {
    const documents = parts.reduce((n, p) => n + p.lengths.length, 0);
    this.starts = new Float64Array(documents + 1);
    this.values = new Float64Array(parts.reduce((n, p) => n + p.values.length, 0));
    let doc = 0;
    for (const p of parts) {
      this.values.set(p.values, this.starts[doc]);
      for (const len of p.lengths) {
        this.starts[doc + 1] = this.starts[doc] + len;
        doc++;
      }
    }
  }

  size(doc: number): number {
    return this.starts[doc + 1] - this.starts[doc];
  }

  jaccard(a: number, b: number): number {
    return sortedJaccard(this.values, this.starts[a], this.starts[a + 1], this.values, this.starts[b], this.starts[b + 1]);
  }
}

/**
 * Every pair of documents with Jaccard ≥ threshold (> 0) of their sets. Such a pair shares
 * an element, so the candidates are the pairs of each element's posting list; counting the
 * shared elements per candidate gives the exact Jaccard.
 */
export function setPairs(sets: CorpusSets, documents: number, threshold: number): { pairs: PairList; candidates: number } {
  // Posting lists as linked lists in typed arrays: head per element, next per entry.
  const heads = new NumberMap(1024);
  const next = new Int32Array(sets.values.length);
  const docOf = new Uint32Array(sets.values.length);
  for (let doc = 0; doc < documents; doc++) {
    for (let k = sets.starts[doc]; k < sets.starts[doc + 1]; k++) {
      const head = heads.get(sets.values[k]);
      next[k] = head === undefined ? -1 : head;
      docOf[k] = doc;
      heads.set(sets.values[k], k);
    }
  }
  const shared = new NumberMap(1024);
  const posting: number[] = [];
  for (const [, head] of heads.entries()) {
    posting.length = 0;
    for (let k = head; k !== -1; k = next[k]) posting.push(docOf[k]);
    // Later documents were linked first: the list is in decreasing order.
    for (let p = 0; p < posting.length; p++) {
      for (let q = p + 1; q < posting.length; q++) shared.add(posting[q] * documents + posting[p], 1);
    }
  }
  const pairs = new PairList(documents);
  for (const [key, count] of shared.entries()) {
    const a = Math.floor(key / documents);
    const b = key - a * documents;
    const j = jaccardOfCounts(sets.size(a), sets.size(b), count);
    if (j >= threshold) pairs.add(a, b, j);
  }
  return { pairs, candidates: shared.size };
}

/** Paragraph pairs: Jaccard of the sets of long-paragraph fingerprints. */
export function paragraphPairs(shards: readonly ParagraphShard[], documents: number, threshold: number): { pairs: PairList; candidates: number } {
  return setPairs(new CorpusSets(shards.map((s) => s.long)), documents, threshold);
}

/** A pair similar in its long paragraphs but not in its short ones (000's short/long tool). */
export interface ShortLongPair {
  a: number;
  b: number;
  long: number;
  short: number;
}

/**
 * Pairs with Jaccard ≥ threshold of their long-paragraph sets and < threshold of their
 * short-paragraph sets; pairs where neither document has a short paragraph are left out
 * (there is nothing to differ in). Sorted by corpus order.
 */
export function shortLongPairs(shards: readonly ParagraphShard[], documents: number, threshold: number): ShortLongPair[] {
  const short = new CorpusSets(shards.map((s) => s.short));
  const { pairs: long } = setPairs(new CorpusSets(shards.map((s) => s.long)), documents, threshold);
  const out: ShortLongPair[] = [];
  for (const key of long.sortedKeys()) {
    const a = Math.floor(key / documents);
    const b = key - a * documents;
    if (short.size(a) + short.size(b) === 0) continue;
    const s = short.jaccard(a, b);
    if (s < threshold) out.push({ a, b, long: long.similarity(a, b), short: s });
  }
  return out;
}
