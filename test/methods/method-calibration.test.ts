import type { MethodRun } from "../../src/methods/sets/set-method.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_GENERATOR, generateCorpus } from "../../scripts/generate-corpus.js";
import { readClustersTsv } from "../../src/output/clusters-tsv.js";
import { drawStratified, stratifiedDesign } from "../../src/eval/stratified-sample.js";
import { sortedJaccard } from "../../src/methods/sets/jaccard.js";
import { shingleSet } from "../../src/methods/minhash/minhash.js";
import { paragraphSets } from "../../src/methods/paragraph-sets/paragraph-sets.js";
import { readCorpus } from "../helpers/vert.js";
import { FEATURES } from "./features.js";
import { runSetMethod } from "../helpers/set-method.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-calibrate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NORM = { normalize: "nfc" as const, lowercase: true, keepNumbers: false };
const SAMPLE = 400;
const corpus = join(dir, "gen.vert");

/** Every pair of the corpus with its exact Jaccard ≥ 0.5, brute force over all pairs. */
type AllPairs = { a: number[]; b: number[]; jaccard: number[] };

function allPairs(sets: Float64Array[]): AllPairs {
  const out: AllPairs = { a: [], b: [], jaccard: [] };
  for (let a = 0; a < sets.length; a++) {
    for (let b = a + 1; b < sets.length; b++) {
      const j = sortedJaccard(sets[a], 0, sets[a].length, sets[b], 0, sets[b].length);
      if (j < 0.5) continue;
      out.a.push(a);
      out.b.push(b);
      out.jaccard.push(j);
    }
  }
  return out;
}

function run(method: "minhash" | "paragraphs"): MethodRun {
  return { method, features: FEATURES, search: { threshold: 0.8, maxDistance: 5, memory: 2 ** 31 }, keep: "longest", pairs: { mode: "edges", limit: 0 }, report: false, calibrate: { sample: SAMPLE, targetRecall: 0.9, sampling: "stratified" } };
}

beforeAll(async () => {
  // Planted near copies at edit rates 0 to 0.2: Jaccards all over [0.5, 1].
  await generateCorpus(corpus, join(dir, "gen.truth.tsv"), { ...DEFAULT_GENERATOR, docs: 1200, vocab: 20_000, dupShare: 0.3, medianTokens: 120 });
}, 60_000);

describe.each(["minhash", "paragraphs"] as const)("calibrate --method %s", (method) => {
  let pairs: AllPairs;
  let documents: number;
  const outs: string[] = [];

  beforeAll(async () => {
    const { docs } = await readCorpus([corpus], 1 << 20, { paragraphs: true });
    documents = docs.length;
    pairs = allPairs(docs.map((d) => (method === "minhash" ? shingleSet(d.tokens, FEATURES.shingleSize, NORM) : paragraphSets(d, FEATURES.shortTokens, NORM).long)));
    for (const [workers, chunkBytes] of [[1, 1 << 20], [2, 1 << 14]]) {
      const out = join(dir, `${method}-${workers}`);
      await runSetMethod([corpus], join(dir, `work-${method}-${workers}`), out, run(method), { workers, chunkBytes });
      outs.push(out);
    }
  }, 120_000);

  it("takes as reference every pair of a sampled document at Jaccard ≥ 0.5 of the brute force", async () => {
    const clusterOf = (await readClustersTsv(join(outs[0], "clusters.tsv"))).clusterOf(documents);
    const sampled = drawStratified(stratifiedDesign(clusterOf, SAMPLE), FEATURES.seed);
    let expected = 0;
    for (let k = 0; k < pairs.a.length; k++) if (sampled[pairs.a[k]] || sampled[pairs.b[k]]) expected++;
    const manifest = JSON.parse(readFileSync(join(outs[0], "manifest.json"), "utf8"));
    expect(expected).toBeGreaterThan(50);
    expect(manifest.calibration).toMatchObject({ sampledDocuments: SAMPLE, referencePairs: expected, targetRecall: 0.9 });
    expect(manifest.phases.calibrate.seconds).toBeGreaterThan(0);
  });

  it("estimates a recall whose interval holds the recall over every pair of the brute-force reference", async () => {
    const clusterOf = (await readClustersTsv(join(outs[0], "clusters.tsv"))).clusterOf(documents);
    const rows = readFileSync(join(outs[0], "calibration.tsv"), "utf8").trim().split("\n").slice(1).map((l) => l.split("\t").map(Number));
    expect(rows.map((r) => r[0])).toEqual([0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1]);
    for (const [threshold, , low, high] of rows) {
      let total = 0;
      let found = 0;
      for (let k = 0; k < pairs.a.length; k++) {
        if (pairs.jaccard[k] < threshold) continue;
        total++;
        if (clusterOf[pairs.a[k]] !== 0 && clusterOf[pairs.a[k]] === clusterOf[pairs.b[k]]) found++;
      }
      expect(found / total, `recall at Jaccard ≥ ${threshold}`).toBeGreaterThanOrEqual(low - 5e-5);
      expect(found / total, `recall at Jaccard ≥ ${threshold}`).toBeLessThanOrEqual(high + 5e-5);
    }
  });

  it("writes the same calibration with 1 and 2 workers and any chunk size", () => {
    const [one, two] = outs.map((out) => ({ table: readFileSync(join(out, "calibration.tsv"), "utf8"), calibration: JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")).calibration }));
    expect(two).toEqual(one);
    if (method === "minhash") {
      // FEATURES: 17 × 7 of 128 permutations; at 0.8, 0.9 needs no more than 8 rows (16 bands).
      expect(one.calibration.banding.configured).toMatchObject({ bands: 17, rows: 7 });
      expect(one.calibration.banding.recommended.probability).toBeGreaterThanOrEqual(0.9);
    } else expect(one.calibration.banding).toBeUndefined();
  });
});
