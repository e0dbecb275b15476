import { describe, expect, it } from "vitest";
import { keepTerms, vocabularyIndex } from "../../src/features/vocabulary.js";
import { NumberMap } from "../../src/util/number-map.js";

describe("keepTerms and vocabularyIndex", () => {
  const df = new NumberMap(16);
  // term → df over 10 documents
  for (const [term, count] of [[50, 3], [7, 10], [2 ** 52 + 1, 3], [9, 1], [11, 6]] as const) df.add(term, count);

  it("orders the kept terms by decreasing df, then hash, within the df limits", () => {
    const { kept, dropped } = keepTerms(df, 10, { minDf: 2, maxDf: Infinity });
    expect([...kept.terms]).toEqual([7, 11, 50, 2 ** 52 + 1]);
    expect([...kept.dfs]).toEqual([10, 6, 3, 3]);
    expect(dropped).toBe(1);
  });

  it("gives each kept term its rank and its idf (or 1), in shared memory", () => {
    const { kept } = keepTerms(df, 10, { minDf: 1, maxDf: Infinity });
    const idf = vocabularyIndex(kept, 10, "tfidf");
    const tf = vocabularyIndex(kept, 10, "tf");
    expect(idf.factors.buffer).toBeInstanceOf(SharedArrayBuffer);
    for (let k = 0; k < kept.terms.length; k++) {
      expect(idf.ranks.get(kept.terms[k])).toBe(k);
      expect(idf.factors[k]).toBe(Math.log(10 / kept.dfs[k]));
      expect(tf.factors[k]).toBe(1);
    }
    expect(idf.factors[0]).toBe(0); // in every document
    expect(idf.ranks.get(12345)).toBeUndefined();
    const other = NumberMap.fromShared(structuredClone(idf.ranks.toShared()));
    expect(other.get(50)).toBe(idf.ranks.get(50));
  });
});
