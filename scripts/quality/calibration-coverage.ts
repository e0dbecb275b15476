/**
 * Coverage of calibrate's 95 % recall intervals (issue 16, README "Calibrating"), by seeded
 * simulation on synthetic corpora given as pairs (no text: the reference and the run's
 * clusters are drawn directly), through the code calibrate runs (calibrationRows,
 * growingCalibration):
 *
 *   node dist/scripts/quality/calibration-coverage.js [--replicates 500] [--regime NAME] [--json out.json]
 *   node dist/scripts/quality/calibration-coverage.js --run OUT --corpus CORPUS [--replicates 1000]
 *
 * With --run (the output directory of `run --method simhash384 CORPUS`), the population is
 * that run's: its clusters.tsv, and every pair of CORPUS at cosine ≥ 0.90 of the token-count
 * vectors (the reference calibrate computes for simhash384, here with every document
 * sampled, in this process: about a minute for 8,500 man pages). Thresholds 0.90 … 0.99.
 *
 * Regimes:
 * - common misses: 6,000 documents, a quarter in near-duplicate groups of 2–13 (pairs of a
 *   group at similarity uniform in [0.5, 1]); the run splits 30 % of the groups in two,
 *   merges 10 % with the next, leaves 10 % of the members alone (the corpus of
 *   test/eval/stratified-sample.test.ts);
 * - rare misses: 20,000 documents, a tenth in groups; the run leaves 5 % of the members alone
 *   (their pairs at every threshold are the only misses at ≥ 0.90), merges 10 %, splits
 *   none, and 3 % of the documents alone have a missed pair with another document alone at
 *   similarity in [0.5, 0.9).
 * - copies (simhash384's, issue 30: its clusters are near-exact copies, Hamming ≤ 5 of 384 bits,
 *   while its thresholds run over cosine 0.90–1.00, so that it misses pairs between clusters):
 *   8,000 documents, families of 1–3 groups of copies (sizes 1 to 60, heavy-tailed: every
 *   stratum holds documents), a group's pairs at similarity 1 and in one cluster, every pair
 *   of two groups of a family at one similarity uniform in [0.9, 1) and missed; 2 % of the
 *   documents outside families in a missed pair at [0.9, 1). Thresholds 0.90, 0.95, 0.98, 0.99.
 * Samples of 100, 300, 1,200 and 4,800 documents (copies: 300 and 1,000), stratified (calibrate's default) and
 * uniform (`--sampling uniform`: per-pair Wilson), and the stratified sample grown to ±4
 * points (--max-width 0.04) from 300 (up to the largest sample). Prints per regime, sample and threshold the share of
 * intervals holding the true recall (over every pair of the corpus) and the mean half-width.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { calibrationRows, type CalibrationRow } from "../../src/eval/calibration.js";
import { sampleDocuments } from "../../src/eval/document-sample.js";
import { growingCalibration } from "../../src/eval/growing-sample.js";
import type { ScoredPairs } from "../../src/eval/pairs-file.js";
import { drawStratified, stratifiedDesign } from "../../src/eval/stratified-sample.js";
import { Sfc32 } from "../../src/sketch/random-vectors.js";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { chunkCorpus, readLimits } from "../../src/corpus/chunker.js";
import { joinScoredPairs } from "../../src/eval/pairs-file.js";
import { readClustersTsv } from "../../src/output/clusters-tsv.js";
import { sampleTermCosines, sampleTermVectors, termSample } from "../../src/methods/sets/sample-term-cosine.js";
import { concatF64, concatU32 } from "../../src/util/typed-arrays.js";
import type { FeatureOptions } from "../../src/core/method-options.js";

interface Shape {
  name: string;
  documents: number;
  /** Share of the documents in near-duplicate groups. */
  grouped: number;
  leftAlone: number;
  split: number;
  merge: number;
  /** Share of the documents alone (not grouped) with a missed pair at similarity in [0.5, 0.9). */
  aloneMissed: number;
  /** Sample sizes (at most a fifth of the documents: the finite-population correction makes larger ones near a census). */
  samples: number[];
  thresholds: number[];
  /** The corpus, when not drawn by `population`. */
  build?: () => Corpus;
}

const THRESHOLDS = [0.5, 0.7, 0.9, 0.95];

const SHAPES: Shape[] = [
  { name: "common misses", documents: 6000, grouped: 0.25, leftAlone: 0.1, split: 0.3, merge: 0.1, aloneMissed: 0, samples: [100, 300, 1200], thresholds: THRESHOLDS },
  { name: "rare misses", documents: 20_000, grouped: 0.1, leftAlone: 0.05, split: 0, merge: 0.1, aloneMissed: 0.03, samples: [100, 300, 1200, 4800], thresholds: THRESHOLDS },
  { name: "copies", documents: 8000, grouped: 0.35, leftAlone: 0, split: 0, merge: 0, aloneMissed: 0.02, samples: [300, 1000], thresholds: [0.9, 0.95, 0.98, 0.99], build: () => copies(8000, 0.35, 0.02) },
];

interface Corpus extends ScoredPairs {
  clusterOf: Uint32Array;
}

/**
 * The copies regime (above): families of groups of copies that the run joins within a group
 * only, `grouped` of the documents in families, `aloneMissed` of the others in a missed pair.
 */
function copies(documents: number, grouped: number, aloneMissed: number, seed = 7): Corpus {
  const random = new Sfc32(seed, 3);
  const uniform = () => random.nextUint32() / 2 ** 32;
  const clusterOf = new Uint32Array(documents);
  const a: number[] = [];
  const b: number[] = [];
  const similarity: number[] = [];
  const pair = (x: number, y: number, s: number) => (a.push(x), b.push(y), similarity.push(s));
  const inFamilies = Math.round(documents * grouped);
  let doc = 0;
  let cluster = 0;
  while (doc < inFamilies) {
    const groups: number[][] = [];
    const count = 1 + (uniform() < 0.5 ? 1 : 0) + (uniform() < 0.3 ? 1 : 0);
    for (let g = 0; g < count && doc < inFamilies; g++) {
      let size = 1;
      while (uniform() < 0.72 && size < 60) size++;
      const members = Array.from({ length: Math.min(size, inFamilies - doc) }, () => doc++);
      if (members.length > 1) {
        cluster++;
        for (const d of members) clusterOf[d] = cluster;
      }
      for (let i = 0; i < members.length; i++) for (let j = i + 1; j < members.length; j++) pair(members[i], members[j], 1);
      for (const other of groups) {
        const s = 0.9 + 0.1 * uniform();
        for (const x of other) for (const y of members) pair(x, y, s);
      }
      groups.push(members);
    }
  }
  const missed = Math.round(((documents - inFamilies) * aloneMissed) / 2);
  for (let k = 0; k < missed; k++) pair(inFamilies + 2 * k, inFamilies + 2 * k + 1, 0.9 + 0.1 * uniform());
  return { clusterOf, a: Uint32Array.from(a), b: Uint32Array.from(b), similarity: Float64Array.from(similarity) };
}

function population(shape: Shape): Corpus {
  const random = new Sfc32(7, 1);
  const uniform = () => random.nextUint32() / 2 ** 32;
  const { documents } = shape;
  const grouped = Math.round(documents * shape.grouped);
  const clusterOf = new Uint32Array(documents);
  const a: number[] = [];
  const b: number[] = [];
  const similarity: number[] = [];
  const pair = (x: number, y: number, s: number) => (a.push(x), b.push(y), similarity.push(s));
  let doc = 0;
  let cluster = 0;
  while (doc < grouped) {
    let size = 2;
    while (uniform() < 0.6 && size < 13) size++;
    const members = Array.from({ length: Math.min(size, grouped - doc) }, () => doc++);
    for (let i = 0; i < members.length; i++) for (let j = i + 1; j < members.length; j++) pair(members[i], members[j], 0.5 + 0.5 * uniform());
    const main = uniform() < shape.merge && cluster > 0 ? cluster : ++cluster;
    const split = uniform() < shape.split ? ++cluster : main;
    members.forEach((d, k) => (clusterOf[d] = uniform() < shape.leftAlone ? 0 : k < members.length / 2 ? main : split));
  }
  // Pairs of documents alone (the run missed them, below the run's threshold).
  const missed = Math.round(((documents - grouped) * shape.aloneMissed) / 2);
  for (let k = 0; k < missed; k++) pair(grouped + 2 * k, grouped + 2 * k + 1, 0.5 + 0.4 * uniform());
  const size = new Uint32Array(cluster + 1);
  for (const c of clusterOf) size[c]++;
  for (let d = 0; d < documents; d++) if (size[clusterOf[d]] < 2) clusterOf[d] = 0;
  return { clusterOf, a: Uint32Array.from(a), b: Uint32Array.from(b), similarity: Float64Array.from(similarity) };
}

/** A simhash384 run's clusters and every pair of its corpus at cosine ≥ 0.90 of the token-count vectors (--run). */
async function runPopulation(out: string, corpus: string): Promise<Corpus> {
  const manifest = JSON.parse(await readFile(join(out, "manifest.json"), "utf8")) as { prepare: FeatureOptions; counts: { documents: number } };
  const options = manifest.prepare;
  const chunks = [];
  for await (const chunk of chunkCorpus([corpus], 1 << 24, readLimits())) chunks.push({ ...chunk, bytes: Buffer.from(chunk.bytes) });
  const documents = chunks.reduce((n, c) => n + c.docCount, 0);
  const sampled = new Uint8Array(documents).fill(1);
  const parts = chunks.map((chunk) => sampleTermVectors({ chunk, options, sampled }));
  const sample = termSample(concatU32(parts.map((p) => p.ordinals)), concatU32(parts.map((p) => p.lengths)), concatF64(parts.map((p) => p.terms)), concatF64(parts.map((p) => p.counts)));
  const pairs = joinScoredPairs(chunks.map((chunk) => sampleTermCosines({ chunk, options, sampled, sample, threshold: 0.9 })));
  return { ...pairs, clusterOf: (await readClustersTsv(join(out, "clusters.tsv"))).clusterOf(documents) };
}

function trueRecall(corpus: Corpus, threshold: number): number {
  let total = 0;
  let found = 0;
  for (let k = 0; k < corpus.a.length; k++) {
    if (corpus.similarity[k] < threshold) continue;
    total++;
    const c = corpus.clusterOf[corpus.a[k]];
    if (c !== 0 && c === corpus.clusterOf[corpus.b[k]]) found++;
  }
  return found / total;
}

function referenceOf(corpus: Corpus) {
  return (sampled: Uint8Array): ScoredPairs => {
    const keep = [...corpus.a.keys()].filter((k) => sampled[corpus.a[k]] === 1 || sampled[corpus.b[k]] === 1);
    return { a: Uint32Array.from(keep, (k) => corpus.a[k]), b: Uint32Array.from(keep, (k) => corpus.b[k]), similarity: Float64Array.from(keep, (k) => corpus.similarity[k]) };
  };
}

interface Tally {
  covered: number[];
  /** Replicates with pairs counted at each threshold (an interval to judge). */
  counted: number[];
  halfWidth: number[];
  /** Intervals entirely below / above the true recall. */
  below: number[];
  above: number[];
  estimate: number[];
}

function tally(thresholds: readonly number[]): Tally {
  const zeros = () => thresholds.map(() => 0);
  return { covered: zeros(), counted: zeros(), halfWidth: zeros(), below: zeros(), above: zeros(), estimate: zeros() };
}

function score(t: Tally, rows: readonly CalibrationRow[], truths: readonly number[]): void {
  rows.forEach((r, k) => {
    if (Number.isNaN(r.recall.estimate)) return;
    t.counted[k]++;
    if (r.recall.low <= truths[k] && truths[k] <= r.recall.high) t.covered[k]++;
    else if (r.recall.high < truths[k]) t.below[k]++;
    else t.above[k]++;
    t.estimate[k] += r.recall.estimate;
    t.halfWidth[k] += (r.recall.high - r.recall.low) / 2;
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { replicates: { type: "string", default: "500" }, regime: { type: "string" }, run: { type: "string" }, corpus: { type: "string" }, json: { type: "string" } } });
  const replicates = Number(values.replicates);
  const results: Record<string, unknown>[] = [];
  const line = (cells: (string | number)[]) => console.log(cells.map((c) => String(c).padEnd(14)).join(""));
  const shapes = SHAPES.filter((s) => values.regime === undefined || s.name === values.regime);
  if (values.run !== undefined) {
    if (values.corpus === undefined) throw new Error("--run needs --corpus, the run's corpus");
    const corpus = await runPopulation(values.run, values.corpus);
    shapes.splice(0, shapes.length, { name: values.run, documents: corpus.clusterOf.length, grouped: 0, leftAlone: 0, split: 0, merge: 0, aloneMissed: 0, samples: [300, 1000], thresholds: [0.9, 0.93, 0.95, 0.97, 0.98, 0.99], build: () => corpus });
  }
  for (const shape of shapes) {
    const corpus = shape.build?.() ?? population(shape);
    const thresholds = shape.thresholds;
    const truths = thresholds.map((t) => trueRecall(corpus, t));
    const reference = referenceOf(corpus);
    const strata = stratifiedDesign(corpus.clusterOf, shape.samples[0]).population;
    console.log(`\n${shape.name}: ${shape.documents} documents (strata ${[...strata].join(", ")}), ${corpus.a.length} pairs; true recall ${thresholds.map((t, k) => `≥ ${t}: ${truths[k].toFixed(4)}`).join(", ")}`);
    console.log("per threshold: coverage %, (intervals below the truth % / above %), mean half-width, mean estimate − truth");
    line(["sample", "sampling", ...thresholds.map((t) => `≥ ${t}`.padEnd(34))]);
    const report = (sample: string, sampling: string, t: Tally) => {
      const coverage = t.covered.map((c, k) => c / t.counted[k]);
      const width = t.halfWidth.map((w, k) => w / t.counted[k]);
      const bias = t.estimate.map((e, k) => e / t.counted[k] - truths[k]);
      const cells = thresholds.map((_, k) => {
        const pc = (x: number) => (100 * x / t.counted[k]).toFixed(1);
        return `${(100 * coverage[k]).toFixed(1)} (${pc(t.below[k])}/${pc(t.above[k])}) ±${width[k].toFixed(3)} ${bias[k] >= 0 ? "+" : ""}${bias[k].toFixed(3)}`.padEnd(34);
      });
      line([sample, sampling, ...cells]);
      results.push({ regime: shape.name, sample, sampling, thresholds, truth: truths, coverage, halfWidth: width, bias, counted: t.counted, below: t.below, above: t.above });
    };
    for (const n of shape.samples) {
      const design = stratifiedDesign(corpus.clusterOf, n);
      const stratified = tally(thresholds);
      const uniform = tally(thresholds);
      for (let seed = 1; seed <= replicates; seed++) {
        const sampled = drawStratified(design, seed);
        score(stratified, calibrationRows(reference(sampled), corpus.clusterOf, sampled, thresholds, design), truths);
        const drawn = sampleDocuments(shape.documents, n, seed);
        score(uniform, calibrationRows(reference(drawn), corpus.clusterOf, drawn, thresholds), truths);
      }
      report(String(n), "stratified", stratified);
      report(String(n), "uniform", uniform);
    }
    const grown = tally(thresholds);
    for (let seed = 1; seed <= replicates; seed++) {
      const g = await growingCalibration(corpus.clusterOf, seed, { sample: 300, maxWidth: 0.04, maxSample: Math.max(...shape.samples) }, "stratified", reference, thresholds);
      score(grown, g.rows, truths);
    }
    report("300→±0.04", "stratified", grown);
  }
  if (values.json !== undefined) writeFileSync(values.json, JSON.stringify(results, null, 1) + "\n");
}

await main();
