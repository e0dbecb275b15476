import { describe, expect, it } from "vitest";
import { recallHalfWidth, widestRecall } from "../../src/eval/calibration.js";
import { growingCalibration } from "../../src/eval/growing-sample.js";
import { growthAllocation } from "../../src/eval/stratified-sample.js";
import { Sfc32 } from "../../src/sketch/random-vectors.js";

/**
 * A corpus of 20,000 documents as pairs, shaped like a run below its threshold: a tenth of
 * the documents in near-duplicate groups of 2–9 that the run put in one cluster (pairs of
 * similarity 0.85–1, a fifth of them identical, a few members left alone), and among the documents the run left alone
 * rare pairs it missed (3 % of them, similarity 0.5–0.9). The misses sit in the large
 * stratum of documents alone, where a fixed sample meets few of them.
 */
function population() {
  const random = new Sfc32(11, 3);
  const uniform = () => random.nextUint32() / 2 ** 32;
  const documents = 20_000;
  const clusterOf = new Uint32Array(documents);
  const a: number[] = [];
  const b: number[] = [];
  const similarity: number[] = [];
  let doc = 0;
  let cluster = 0;
  while (doc < documents / 10) {
    let size = 2;
    while (uniform() < 0.5 && size < 9) size++;
    const members = Array.from({ length: size }, () => doc++);
    for (let i = 0; i < size; i++) for (let j = i + 1; j < size; j++) (a.push(members[i]), b.push(members[j]), similarity.push(uniform() < 0.2 ? 1 : 0.85 + 0.15 * uniform()));
    cluster++;
    for (const d of members) clusterOf[d] = uniform() < 0.05 ? 0 : cluster;
  }
  const size = new Uint32Array(cluster + 1);
  for (const c of clusterOf) size[c]++;
  for (let d = 0; d < documents; d++) if (size[clusterOf[d]] < 2) clusterOf[d] = 0;
  for (; doc + 1 < documents; doc += 2) if (uniform() < 0.03) (a.push(doc), b.push(doc + 1), similarity.push(0.5 + 0.4 * uniform()));
  return { clusterOf, a: Uint32Array.from(a), b: Uint32Array.from(b), similarity: Float64Array.from(similarity) };
}

const corpus = population();

/** The reference of a batch: the corpus's pairs with a flagged document. */
function referenceOf(sampled: Uint8Array) {
  const keep = [...corpus.a.keys()].filter((k) => sampled[corpus.a[k]] === 1 || sampled[corpus.b[k]] === 1);
  return { a: Uint32Array.from(keep, (k) => corpus.a[k]), b: Uint32Array.from(keep, (k) => corpus.b[k]), similarity: Float64Array.from(keep, (k) => corpus.similarity[k]) };
}

describe("growing calibration sample (--max-width)", () => {
  it("gives half of a batch as the strata were drawn and half by N_h·S_h, never more than a stratum has left", () => {
    const design = (drawn: number[]) => ({ stratumOf: new Uint8Array(0), population: Float64Array.of(1000, 100, 50), drawn: Float64Array.from(drawn) });
    // Drawn 50/30/20, spread only in stratum 0: 100 = 25 + 15 + 10 as drawn, + 50 to stratum 0.
    expect([...growthAllocation(design([50, 30, 20]), Float64Array.of(1, 0, 0), 100)]).toEqual([75, 15, 10]);
    // No spread measured anywhere: all as drawn.
    expect([...growthAllocation(design([50, 30, 20]), Float64Array.of(0, 0, 0), 100)]).toEqual([50, 30, 20]);
    // Stratum 2 has 5 left of its 40 + 100: the rest goes to the first stratum with room.
    expect([...growthAllocation(design([50, 30, 45]), Float64Array.of(0, 0, 1), 200)]).toEqual([171, 24, 5]);
  });

  it("grows a nested sample in batches that double it, a pure function of the seed, each pair counted once", async () => {
    const small = await growingCalibration(corpus.clusterOf, 5, { sample: 400 }, "stratified", referenceOf);
    const grown = await growingCalibration(corpus.clusterOf, 5, { sample: 400, maxWidth: 0.02, maxSample: 3000 }, "stratified", referenceOf);
    expect(small.batches).toEqual([400]);
    expect(grown.batches).toEqual([400, 800, 1600, 3000]);
    for (let d = 0; d < small.sampled.length; d++) if (small.sampled[d] === 1) expect(grown.sampled[d]).toBe(1);
    const whole = referenceOf(grown.sampled);
    expect(grown.reference.a.length).toBe(whole.a.length);
    expect(new Set([...grown.reference.a.keys()].map((k) => `${grown.reference.a[k]} ${grown.reference.b[k]}`)).size).toBe(whole.a.length);
    const again = await growingCalibration(corpus.clusterOf, 5, { sample: 400, maxWidth: 0.02, maxSample: 3000 }, "stratified", referenceOf);
    expect(again.rows).toEqual(grown.rows);
    // Without --max-width, the same rows as before the option: the first batch alone.
    expect(widestRecall(grown.rows)).toBeLessThan(0.6 * widestRecall(small.rows));
  });

  it("stops as soon as every threshold's recall interval is within ±maxWidth", async () => {
    const grown = await growingCalibration(corpus.clusterOf, 9, { sample: 400, maxWidth: 0.05, maxSample: 20_000 }, "stratified", referenceOf);
    expect(grown.withinWidth.length).toBe(grown.rows.length);
    for (const r of grown.rows) expect(recallHalfWidth(r)).toBeLessThanOrEqual(0.05);
    const before = await growingCalibration(corpus.clusterOf, 9, { sample: 400, maxWidth: 0.05, maxSample: grown.batches[grown.batches.length - 2] }, "stratified", referenceOf);
    expect(before.withinWidth.length).toBeLessThan(before.rows.length);
  });
});
