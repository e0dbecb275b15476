import { OCC_WORDS } from "./occurrences.js";

/** The occurrences of one bucket that one chunk contributed, in corpus order. */
export interface BucketPart {
  chunk: number;
  occ: Uint32Array;
}

/** Per chunk, the repeated occurrences of a bucket as (unit, count) runs. */
export interface ChunkRepeats {
  chunk: number;
  runs: Uint32Array;
}

/**
 * Finds, in one bucket, every occurrence whose key occurred earlier in the corpus (in an
 * earlier chunk, or earlier in the same chunk), given the bucket's parts in chunk order.
 * Keys of different buckets never meet, so buckets are independent tasks. The open-addressing
 * table holds each distinct key once (8 bytes, load ≤ 1/2): memory is about 16 bytes per
 * occurrence of this bucket, whatever the corpus size beyond it.
 */
export function findRepeats(parts: readonly BucketPart[]): ChunkRepeats[] {
  let total = 0;
  for (const p of parts) total += p.occ.length / OCC_WORDS;
  let capacity = 16;
  while (capacity < total * 2) capacity *= 2;
  const mask = capacity - 1;
  const table = new Uint32Array(capacity * 2);
  // (0, 0) marks an empty slot; the one key that equals it is remembered apart.
  let zeroSeen = false;
  const result: ChunkRepeats[] = [];
  let runs = new Uint32Array(1024);
  for (const { chunk, occ } of parts) {
    let used = 0;
    let lastSeg = -1;
    const m = occ.length;
    for (let i = 0; i < m; i += OCC_WORDS) {
      const lo = occ[i];
      const hi = occ[i + 1];
      let repeated: boolean;
      if (lo === 0 && hi === 0) {
        repeated = zeroSeen;
        zeroSeen = true;
      } else {
        let slot = lo & mask;
        for (;;) {
          const tl = table[slot * 2];
          const th = table[slot * 2 + 1];
          if (tl === 0 && th === 0) {
            table[slot * 2] = lo;
            table[slot * 2 + 1] = hi;
            repeated = false;
            break;
          }
          if (tl === lo && th === hi) {
            repeated = true;
            break;
          }
          slot = (slot + 1) & mask;
        }
      }
      if (!repeated) continue;
      const seg = occ[i + 2];
      if (seg === lastSeg) {
        runs[used - 1]++;
        continue;
      }
      if (used + 2 > runs.length) {
        const grown = new Uint32Array(runs.length * 2);
        grown.set(runs);
        runs = grown;
      }
      runs[used++] = seg;
      runs[used++] = 1;
      lastSeg = seg;
    }
    if (used > 0) result.push({ chunk, runs: runs.slice(0, used) });
  }
  return result;
}
