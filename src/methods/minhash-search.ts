import { concatU32, growableU32 } from "../util/typed-arrays.js";
import { forEachKeyGroup } from "./key-groups.js";
import type { MinhashShard } from "./minhash.js";
import { verifyCandidates, type VerifySettings } from "./minhash-verify.js";
import type { PairList } from "./pair-list.js";

export interface MinhashSearch extends VerifySettings {
  bands: number;
}

/**
 * Candidate pairs: documents that share a band key, each pair once (at the first band it
 * shares), flat as doc_a, doc_b with doc_a < doc_b (corpus ordinals).
 */
export function candidatePairs(shards: readonly MinhashShard[], bands: number): Uint32Array {
  const keys = concatU32(shards.map((x) => x.keys));
  const members: number[] = [];
  for (const x of shards) for (let i = 0; i < x.empty.length; i++) if (!x.empty[i]) members.push(x.firstDoc + i);
  const docs = Uint32Array.from(members);
  const candidates = growableU32();
  const bandKeys = new Uint32Array(docs.length);
  for (let band = 0; band < bands; band++) {
    for (let i = 0; i < docs.length; i++) bandKeys[i] = keys[docs[i] * bands + band];
    forEachKeyGroup(bandKeys, docs, (group, from, to) => {
      for (let p = from; p < to; p++) {
        const a = group[p] * bands;
        next: for (let q = p + 1; q < to; q++) {
          const b = group[q] * bands;
          for (let earlier = 0; earlier < band; earlier++) if (keys[a + earlier] === keys[b + earlier]) continue next;
          candidates.push2(group[p], group[q]);
        }
      }
    });
  }
  return candidates.view();
}

/**
 * Candidates from the band keys; the pool then computes every candidate's exact Jaccard and
 * pairs at or above the threshold are kept (so precision is 1 by construction).
 */
export async function minhashPairs(shards: readonly MinhashShard[], s: MinhashSearch): Promise<{ pairs: PairList; candidates: number; verifyBlocks: number }> {
  const candidates = candidatePairs(shards, s.bands);
  const { pairs, blocks } = await verifyCandidates(candidates, shards, s);
  return { pairs, candidates: candidates.length / 2, verifyBlocks: blocks };
}
