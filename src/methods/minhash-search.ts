import type { WorkerPool } from "../coordinator/pool.js";
import { forEachKeyGroup } from "./key-groups.js";
import type { MinhashShard, VerifyTask } from "./minhash.js";
import { PairList } from "./pair-list.js";
import { concatU32 } from "../util/typed-arrays.js";

/** Candidates verified per task: large enough to amortise a task, small enough to spread. */
const VERIFY_BATCH = 1 << 15;

/** Candidate pairs grouped by the shards of their two documents, flushed as verify tasks. */
class CandidateBuckets {
  private readonly buckets = new Map<number, number[]>();

  constructor(private readonly shardCount: number, private readonly shardOf: (doc: number) => number) {}

  add(a: number, b: number): number[] | null {
    const key = this.shardOf(a) * this.shardCount + this.shardOf(b);
    let bucket = this.buckets.get(key);
    if (bucket === undefined) this.buckets.set(key, (bucket = []));
    bucket.push(a, b);
    if (bucket.length < 2 * VERIFY_BATCH) return null;
    this.buckets.delete(key);
    return bucket;
  }

  *drain(): Generator<number[]> {
    for (const bucket of this.buckets.values()) yield bucket;
    this.buckets.clear();
  }
}

export interface MinhashSearch {
  documents: number;
  bands: number;
  threshold: number;
  workdir: string;
  pool: WorkerPool;
}

/**
 * Candidates are pairs sharing a band key (each taken at the first band it shares); the
 * pool then computes every candidate's exact Jaccard from the shards' sets files, and
 * pairs at or above the threshold are kept (so precision is 1 by construction).
 */
export async function minhashPairs(shards: readonly MinhashShard[], s: MinhashSearch): Promise<{ pairs: PairList; candidates: number }> {
  const keys = concatU32(shards.map((x) => x.keys));
  const shardStart = shards.map((x) => x.firstDoc);
  const shardOf = (doc: number) => {
    let lo = 0;
    let hi = shardStart.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (shardStart[mid] <= doc) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const members: number[] = [];
  for (const x of shards) for (let i = 0; i < x.empty.length; i++) if (!x.empty[i]) members.push(x.firstDoc + i);
  const docs = Uint32Array.from(members);
  const buckets = new CandidateBuckets(shards.length, shardOf);
  const pairs = new PairList(s.documents);
  const pending: Promise<void>[] = [];
  let candidates = 0;
  const verify = async (flat: number[]) => {
    const list = Uint32Array.from(flat);
    const sa = shardOf(list[0]);
    const sb = shardOf(list[1]);
    const task: VerifyTask = { workdir: s.workdir, shardA: sa, firstA: shardStart[sa], shardB: sb, firstB: shardStart[sb], pairs: list };
    const { result } = await s.pool.submit<Float64Array>("verify", task);
    pending.push(
      result.then((sims) => {
        for (let k = 0; k < sims.length; k++) if (sims[k] >= s.threshold) pairs.add(list[2 * k], list[2 * k + 1], sims[k]);
      }),
    );
  };
  const bandKeys = new Uint32Array(docs.length);
  for (let band = 0; band < s.bands; band++) {
    const full: number[][] = [];
    for (let i = 0; i < docs.length; i++) bandKeys[i] = keys[docs[i] * s.bands + band];
    forEachKeyGroup(bandKeys, docs, (group, from, to) => {
      for (let p = from; p < to; p++) {
        const a = group[p] * s.bands;
        next: for (let q = p + 1; q < to; q++) {
          const b = group[q] * s.bands;
          for (let earlier = 0; earlier < band; earlier++) if (keys[a + earlier] === keys[b + earlier]) continue next;
          candidates++;
          const batch = buckets.add(group[p], group[q]);
          if (batch !== null) full.push(batch);
        }
      }
    });
    for (const batch of full) await verify(batch);
  }
  for (const batch of buckets.drain()) await verify(batch);
  await Promise.all(pending);
  return { pairs, candidates };
}
