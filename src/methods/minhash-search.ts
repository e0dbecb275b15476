import { EdgeList, type DuplicateGraph } from "../clusters/duplicate-graph.js";
import { concatU32 } from "../util/typed-arrays.js";
import { ALL_PAIRS_BUCKET, BucketCandidates } from "./bucket-candidates.js";
import { featuredDocs, firstOfByKeys, leadersOf } from "./first-of.js";
import { forEachKeyGroup } from "./key-groups.js";
import type { MinhashShard } from "./minhash.js";
import { verifyCandidates, type VerifySettings } from "./minhash-verify.js";

export interface MinhashSearch extends VerifySettings {
  bands: number;
  threshold: number;
  /** Buckets of at most this many leaders give all their pairs (bucket-candidates.ts). */
  allPairsBucket?: number;
}

/**
 * Candidate pairs of leaders: leaders that share a band key, from buckets bounded as in
 * bucket-candidates.ts, each pair once, flat as doc_a, doc_b (a < b), sorted.
 */
export function candidatePairs(shards: readonly MinhashShard[], leaders: Uint32Array, bands: number, allPairsBucket = ALL_PAIRS_BUCKET): Uint32Array {
  const keys = concatU32(shards.map((x) => x.keys));
  const buckets = new BucketCandidates(allPairsBucket);
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
export async function minhashGraph(shards: readonly MinhashShard[], s: MinhashSearch): Promise<{ graph: DuplicateGraph; candidates: number; verifyBlocks: number }> {
  const docs = featuredDocs(shards);
  const digests = concatU32(shards.map((x) => x.digests));
  const hi = Uint32Array.from(docs, (d) => digests[2 * d]);
  const lo = Uint32Array.from(docs, (d) => digests[2 * d + 1]);
  const firstOf = firstOfByKeys(s.documents, docs, hi, lo, () => true);
  const candidates = candidatePairs(shards, leadersOf(firstOf), s.bands, s.allPairsBucket);
  const { similarities, blocks } = await verifyCandidates(candidates, shards, s);
  const edges = new EdgeList();
  for (let p = 0; p < similarities.length; p++) if (similarities[p] >= s.threshold) edges.push(candidates[2 * p], candidates[2 * p + 1], similarities[p]);
  return { graph: { documents: s.documents, firstOf, edges }, candidates: similarities.length, verifyBlocks: blocks };
}
