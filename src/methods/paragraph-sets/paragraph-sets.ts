import type { NormalizeOptions } from "../../core/options.js";
import { hashSequence } from "../../features/hash.js";
import { keptHashes, termHash, tokenHash } from "../../features/terms.js";

import type { Doc, VerticalDoc } from "../../corpus/vertical.js";
import { EdgeList, type DuplicateGraph } from "../../clusters/duplicate-graph.js";
import { IdentityGroups } from "../../clusters/identity-groups.js";
import { integerOrder, sortOrder } from "../../util/radix-order.js";
import { VertdupError } from "../../core/errors.js";
import { growableF64, growableU32 } from "../../util/typed-arrays.js";
import { ALL_PAIRS_BUCKET, BucketCandidates } from "../sets/bucket-candidates.js";
import { firstOfByKeys, leadersOf } from "../sets/first-of.js";
import { setDigest, sortedJaccard, sortedSet } from "../sets/jaccard.js";
import { forEachValueGroup } from "../sets/key-groups.js";
import { scanShard, type ChunkTask, type ShardBase } from "../sets/shard-scan.js";
import { meetsThreshold } from "../../util/similarity-threshold.js";

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
  const base = scanShard(task.chunk, { ...task.options, paragraphs: true }, tokenHash(task.options), (doc) => {
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
 * The prefix of each leader's set for a Jaccard threshold t: its |A| − ⌈t·|A|⌉ + 1 rarest
 * elements (fewest leaders holding them, then value). Two sets with Jaccard ≥ t share at least
 * ⌈t·max(|A|, |B|)⌉ elements, so their prefixes under one global order share one (the prefix
 * filter of set-similarity joins); rarest first keeps boilerplate paragraphs out of prefixes.
 */
function prefixes(sets: CorpusSets, leaders: Uint32Array, threshold: number): { values: Float64Array; owners: Uint32Array } {
  const total = leaders.reduce((n, d) => n + sets.size(d), 0);
  const values = new Float64Array(total);
  let at = 0;
  for (const d of leaders) {
    values.set(sets.values.subarray(sets.starts[d], sets.starts[d + 1]), at);
    at += sets.size(d);
  }
  const frequency = new Uint32Array(total);
  const order = integerOrder(values, total);
  for (let from = 0; from < total; ) {
    let to = from + 1;
    while (to < total && values[order[to]] === values[order[from]]) to++;
    for (let k = from; k < to; k++) frequency[order[k]] = to - from;
    from = to;
  }
  // The tolerance keeps ⌈t·n⌉ from rounding up past an exact product (0.7 · 10).
  const prefixLength = (n: number) => Math.min(n, n - Math.ceil(threshold * n - 1e-9) + 1);
  const count = leaders.reduce((n, d) => n + prefixLength(sets.size(d)), 0);
  const out = { values: new Float64Array(count), owners: new Uint32Array(count) };
  let filled = 0;
  at = 0;
  for (const d of leaders) {
    const n = sets.size(d);
    const entries = Array.from({ length: n }, (_, k) => at + k).sort((x, y) => frequency[x] - frequency[y] || values[x] - values[y]);
    for (let k = 0; k < prefixLength(n); k++) {
      out.values[filled] = values[entries[k]];
      out.owners[filled++] = d;
    }
    at += n;
  }
  return out;
}

/**
 * Documents with identical non-empty sets form one identity group; edges join leaders with
 * Jaccard ≥ threshold (> 0). Candidates are leaders sharing a prefix element, from buckets
 * bounded as in bucket-candidates.ts; each is verified with the exact Jaccard.
 */
export function setGraph(sets: CorpusSets, documents: number, threshold: number, allPairsBucket = ALL_PAIRS_BUCKET, part?: Uint32Array): { graph: DuplicateGraph; candidates: number } {
  let featured = 0;
  for (let d = 0; d < documents; d++) if (sets.size(d) > 0) featured++;
  const docs = new Uint32Array(featured);
  featured = 0;
  for (let d = 0; d < documents; d++) if (sets.size(d) > 0) docs[featured++] = d;
  const digests = new Uint32Array(2 * docs.length);
  docs.forEach((d, k) => setDigest(sets.values, sets.starts[d], sets.starts[d + 1], digests, 2 * k));
  const hi = digests.filter((_, k) => k % 2 === 0);
  const lo = digests.filter((_, k) => k % 2 === 1);
  const firstOf = firstOfByKeys(documents, docs, hi, lo, (a, b) => sets.size(a) === sets.size(b) && sets.jaccard(a, b) === 1, part);
  const { values, owners } = prefixes(sets, leadersOf(firstOf), threshold);
  const buckets = new BucketCandidates(allPairsBucket, part);
  forEachValueGroup(values, owners, (group, from, to) => buckets.addBucket(group, from, to));
  const candidates = buckets.sorted();
  const edges = new EdgeList();
  for (let k = 0; k < candidates.length; k += 2) {
    const j = sets.jaccard(candidates[k], candidates[k + 1]);
    if (meetsThreshold(j, threshold)) edges.push(candidates[k], candidates[k + 1], j);
  }
  return { graph: { documents, firstOf, edges }, candidates: candidates.length / 2 };
}

/** The paragraphs method: Jaccard of the sets of long-paragraph fingerprints. */
export function paragraphGraph(shards: readonly ParagraphShard[], documents: number, threshold: number, allPairsBucket = ALL_PAIRS_BUCKET, part?: Uint32Array): { graph: DuplicateGraph; candidates: number } {
  return setGraph(new CorpusSets(shards.map((s) => s.long)), documents, threshold, allPairsBucket, part);
}

/** A pair similar in its long paragraphs but not in its short ones (000's short/long tool). */
export interface ShortLongPair {
  a: number;
  b: number;
  long: number;
  short: number;
}

/**
 * Document pairs of the paragraphs graph (pairs inside an identity group, Jaccard 1, and the
 * members of two groups joined by an edge) whose short-paragraph sets have Jaccard <
 * threshold; pairs where neither document has a short paragraph are left out (there is
 * nothing to differ in). Sorted by corpus order. The document pairs are counted first and
 * refused over `limit` (0: no limit): a group of m copies alone has m(m−1)/2. With `part`
 * (`--partition-attr`), the graph's groups and edges lie within one partition, so every pair does.
 */
export function shortLongPairs(shards: readonly ParagraphShard[], documents: number, threshold: number, limit = 0, allPairsBucket = ALL_PAIRS_BUCKET, part?: Uint32Array): ShortLongPair[] {
  const short = new CorpusSets(shards.map((s) => s.short));
  const { graph } = paragraphGraph(shards, documents, threshold, allPairsBucket, part);
  const groups = new IdentityGroups(graph.firstOf);
  const { edges } = graph;
  const { size, start, members } = groups;
  let total = 0;
  for (let d = 0; d < documents; d++) total += (size[d] * (size[d] - 1)) / 2;
  for (let k = 0; k < edges.length; k++) total += size[edges.a(k)] * size[edges.b(k)];
  if (limit > 0 && total > limit) throw new VertdupError(`short-long: ${total} document pairs to compare, more than --pairs-limit ${limit}`);
  const ends = growableU32();
  const sims = growableF64();
  const consider = (a: number, b: number, long: number) => {
    if (short.size(a) + short.size(b) === 0) return;
    const s = short.jaccard(a, b);
    if (!meetsThreshold(s, threshold)) {
      ends.push2(Math.min(a, b), Math.max(a, b));
      sims.push2(long, s);
    }
  };
  for (let leader = 0; leader < documents; leader++) {
    const to = start[leader] + size[leader];
    for (let p = start[leader]; p < to; p++) for (let q = p + 1; q < to; q++) consider(members[p], members[q], 1);
  }
  for (let k = 0; k < edges.length; k++) {
    const a = edges.a(k);
    const b = edges.b(k);
    for (let p = start[a]; p < start[a] + size[a]; p++) for (let q = start[b]; q < start[b] + size[b]; q++) consider(members[p], members[q], edges.similarity(k));
  }
  const n = sims.length / 2;
  const flat = ends.view();
  const order = sortOrder(flat.filter((_, k) => k % 2 === 0), flat.filter((_, k) => k % 2 === 1), n);
  return Array.from(order, (p) => ({ a: flat[2 * p], b: flat[2 * p + 1], long: sims.values[2 * p], short: sims.values[2 * p + 1] }));
}
