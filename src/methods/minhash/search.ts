import { EdgeList, type DuplicateGraph } from "../../clusters/duplicate-graph.js";
import { concatU32 } from "../../util/typed-arrays.js";
import { ALL_PAIRS_BUCKET, BucketCandidates } from "../sets/bucket-candidates.js";
import { featuredDocs, firstOfByKeys, leadersOf } from "../sets/first-of.js";
import { forEachKeyGroup } from "../sets/key-groups.js";
import type { MinhashShard } from "./minhash.js";
import { verifyCandidates, type VerifySettings } from "./verify.js";
import { meetsThreshold } from "../../util/similarity-threshold.js";

export interface MinhashSearch extends VerifySettings {
  bands: number;
  threshold: number;
  /** Buckets of at most this many leaders give all their pairs (bucket-candidates.ts). */
  allPairsBucket?: number;
  /** Edges already verified among documents of one index (`--against`): those pairs are not verified again. */
  known?: KnownEdges;
  /** `--partition-attr`: each document's partition (identity groups and buckets are per partition). */
  part?: Uint32Array;
}

/**
 * The edges of the indices a run is compared with, in the run's ordinals: per index its
 * documents [from, to) and its edges (a < b, sorted by (a, b), indices in order, so the whole
 * list is sorted). They stand for verification of a candidate pair inside one index because
 * such a pair was a candidate when the index was made: the index's documents, their leaders
 * and their order in every band bucket are the same, and new documents only join buckets at
 * their ends, so an old pair's bucket either had all its pairs then, or had the same first
 * leader and the same predecessors. An index made at a threshold above this run's cannot
 * answer (`ranges` leaves it out).
 */
export interface KnownEdges {
  ranges: { from: number; to: number }[];
  a: Uint32Array;
  b: Uint32Array;
  similarity: Float64Array;
}

/**
 * Candidate pairs of leaders: leaders that share a band key, from buckets bounded as in
 * bucket-candidates.ts, each pair once, flat as doc_a, doc_b (a < b), sorted.
 */
export function candidatePairs(shards: readonly MinhashShard[], leaders: Uint32Array, bands: number, allPairsBucket = ALL_PAIRS_BUCKET, part?: Uint32Array): Uint32Array {
  const keys = concatU32(shards.map((x) => x.keys));
  const buckets = new BucketCandidates(allPairsBucket, part);
  const bandKeys = new Uint32Array(leaders.length);
  for (let band = 0; band < bands; band++) {
    for (let i = 0; i < leaders.length; i++) bandKeys[i] = keys[leaders[i] * bands + band];
    forEachKeyGroup(bandKeys, leaders, (group, from, to) => buckets.addBucket(group, from, to));
  }
  return buckets.sorted();
}

/**
 * Documents with identical shingle sets (equal 64-bit set digests) form one identity group;
 * the band keys of the group leaders give candidates, the pool computes every candidate's
 * exact Jaccard, and candidates at or above the threshold are the edges (precision 1 by
 * construction).
 */
export async function minhashGraph(shards: readonly MinhashShard[], s: MinhashSearch): Promise<{ graph: DuplicateGraph; candidates: number; verified: number; verifyBlocks: number }> {
  const docs = featuredDocs(shards);
  const digests = concatU32(shards.map((x) => x.digests));
  const hi = Uint32Array.from(docs, (d) => digests[2 * d]);
  const lo = Uint32Array.from(docs, (d) => digests[2 * d + 1]);
  const firstOf = firstOfByKeys(s.documents, docs, hi, lo, () => true, s.part);
  const candidates = candidatePairs(shards, leadersOf(firstOf), s.bands, s.allPairsBucket, s.part);
  const known = s.known === undefined ? null : knownSimilarities(candidates, s.known);
  const { similarities, blocks } = await verifyCandidates(known === null ? candidates : known.unknown, shards, s);
  const edges = new EdgeList();
  for (let p = 0, v = 0; p < candidates.length / 2; p++) {
    const similarity = known === null || Number.isNaN(known.similarity[p]) ? similarities[v++] : known.similarity[p];
    if (meetsThreshold(similarity, s.threshold)) edges.push(candidates[2 * p], candidates[2 * p + 1], similarity);
  }
  return { graph: { documents: s.documents, firstOf, edges }, candidates: candidates.length / 2, verified: similarities.length, verifyBlocks: blocks };
}

/**
 * Per candidate (a, b): its similarity when an index answers for it (that of its known edge,
 * 0 when it was verified below the index's threshold), NaN when it must be verified; and the
 * candidates to verify, flat and in order.
 */
function knownSimilarities(candidates: Uint32Array, known: KnownEdges): { similarity: Float64Array; unknown: Uint32Array } {
  const n = candidates.length / 2;
  const similarity = new Float64Array(n).fill(NaN);
  let unknown = 0;
  let r = 0;
  let e = 0;
  for (let p = 0; p < n; p++) {
    const a = candidates[2 * p];
    const b = candidates[2 * p + 1];
    while (r < known.ranges.length && known.ranges[r].to <= a) r++;
    if (r < known.ranges.length && known.ranges[r].from <= a && b < known.ranges[r].to) {
      while (e < known.a.length && (known.a[e] < a || (known.a[e] === a && known.b[e] < b))) e++;
      similarity[p] = e < known.a.length && known.a[e] === a && known.b[e] === b ? known.similarity[e] : 0;
    } else unknown++;
  }
  const out = new Uint32Array(2 * unknown);
  for (let p = 0, k = 0; p < n; p++) {
    if (!Number.isNaN(similarity[p])) continue;
    out[k++] = candidates[2 * p];
    out[k++] = candidates[2 * p + 1];
  }
  return { similarity, unknown: out };
}
