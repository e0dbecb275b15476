import type { CountRule } from "../core/paragraph-options.js";
import { isRepeated } from "./repeated-ends.js";

/** The verdict on the units of one chunk. */
export interface Verdict {
  /** 1 for a removed unit (duplicate, or a stub smoothed away), else 0. */
  bad: Uint8Array;
  /** 1 for a document with no kept unit that has a token: its own tags go too. */
  docBad: Uint8Array;
  /** Units with a token that were duplicates by their own n-grams (before smoothing). */
  duplicates: number;
  /** Units with a token removed by smoothing only. */
  stubs: number;
}

/**
 * The numerator of each unit's repeated share, from the chunk's repeated n-gram ends
 * (repeated-ends.ts; a unit's tokens are consecutive among the chunk's):
 * - `ngrams`: the repeated n-grams that end in the unit;
 * - `tokens` (onion 1.2): the unit's tokens covered by such an n-gram, which covers its own
 *   last `ngram` tokens counted inside the unit only — onion's `bad_tokens += n − prev_bad_tokens`
 *   with `prev_bad_tokens` starting at n in every paragraph.
 */
export function repeatedPerUnit(segTokens: Int32Array, ends: Uint32Array, count: CountRule, ngram: number): Uint32Array {
  const out = new Uint32Array(segTokens.length);
  let first = 0;
  for (let s = 0; s < segTokens.length; s++) {
    const end = first + segTokens[s];
    let sum = 0;
    // The last token counted as covered: none of the unit's yet.
    let covered = first - 1;
    for (let e = first; e < end; e++) {
      if (!isRepeated(ends, e)) continue;
      sum += count === "ngrams" ? 1 : Math.min(ngram, e - covered);
      covered = e;
    }
    out[s] = sum;
    first = end;
  }
  return out;
}

/**
 * onion's decision, per document:
 * 1. a unit is a duplicate when it has tokens and repeated / tokens > threshold (`repeated`
 *    from `repeatedPerUnit`), the
 *    threshold taken in single precision as onion's `float` option is (so 9/10 > 0.9);
 * 2. smoothing: every maximal run of non-duplicate units whose tokens add up to at most
 *    `maxStub`, with a duplicate or a document edge on each side, is removed too
 *    (`maxStub` -1 disables it; the document edges count, so a whole document of at most
 *    `maxStub` tokens goes);
 * 3. a document none of whose kept units has a token is removed with its tags.
 */
export function decideUnits(
  segTokens: Int32Array,
  repeated: Uint32Array,
  docFirstSeg: Int32Array,
  threshold: number,
  maxStub: number,
): Verdict {
  const units = segTokens.length;
  const docs = docFirstSeg.length - 1;
  const bad = new Uint8Array(units);
  const docBad = new Uint8Array(docs);
  const limit = Math.fround(threshold);
  let duplicates = 0;
  let stubs = 0;
  for (let s = 0; s < units; s++) {
    const t = segTokens[s];
    if (t > 0 && repeated[s] / t > limit) {
      bad[s] = 1;
      duplicates++;
    }
  }
  for (let d = 0; d < docs; d++) {
    const first = docFirstSeg[d];
    const end = docFirstSeg[d + 1];
    let runStart = first;
    let runTokens = 0;
    for (let s = first; s <= end; s++) {
      if (s === end || bad[s] === 1) {
        if (runTokens <= maxStub) {
          for (let r = runStart; r < s; r++) {
            if (segTokens[r] > 0) stubs++;
            bad[r] = 1;
          }
        }
        runStart = s + 1;
        runTokens = 0;
      } else {
        runTokens += segTokens[s];
      }
    }
    let kept = false;
    for (let s = first; s < end && !kept; s++) kept = bad[s] === 0 && segTokens[s] > 0;
    docBad[d] = kept ? 0 : 1;
  }
  return { bad, docBad, duplicates, stubs };
}
