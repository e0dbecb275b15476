/**
 * Coverage of calibrate's 95 % recall intervals (issue 16, README "Calibrating"), by seeded
 * simulation on synthetic corpora given as pairs (no text: the reference and the run's
 * clusters are drawn directly), through the code calibrate runs (calibrationRows,
 * growingCalibration):
 *
 *   node dist/scripts/quality/calibration-coverage.js [--replicates 500] [--json out.json]
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
 * Samples of 100, 300, 1,200 and 4,800 documents, stratified (calibrate's default) and
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
}

const SHAPES: Shape[] = [
  { name: "common misses", documents: 6000, grouped: 0.25, leftAlone: 0.1, split: 0.3, merge: 0.1, aloneMissed: 0, samples: [100, 300, 1200] },
  { name: "rare misses", documents: 20_000, grouped: 0.1, leftAlone: 0.05, split: 0, merge: 0.1, aloneMissed: 0.03, samples: [100, 300, 1200, 4800] },
];

const THRESHOLDS = [0.5, 0.7, 0.9, 0.95];

interface Corpus extends ScoredPairs {
  clusterOf: Uint32Array;
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

function tally(): Tally {
  const zeros = () => THRESHOLDS.map(() => 0);
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
  const { values } = parseArgs({ options: { replicates: { type: "string", default: "500" }, json: { type: "string" } } });
  const replicates = Number(values.replicates);
  const results: Record<string, unknown>[] = [];
  const line = (cells: (string | number)[]) => console.log(cells.map((c) => String(c).padEnd(14)).join(""));
  for (const shape of SHAPES) {
    const corpus = population(shape);
    const truths = THRESHOLDS.map((t) => trueRecall(corpus, t));
    const reference = referenceOf(corpus);
    console.log(`\n${shape.name}: ${shape.documents} documents, ${corpus.a.length} pairs; true recall ${THRESHOLDS.map((t, k) => `≥ ${t}: ${truths[k].toFixed(4)}`).join(", ")}`);
    console.log("per threshold: coverage %, (intervals below the truth % / above %), mean half-width, mean estimate − truth");
    line(["sample", "sampling", ...THRESHOLDS.map((t) => `≥ ${t}`.padEnd(34))]);
    const report = (sample: string, sampling: string, t: Tally) => {
      const coverage = t.covered.map((c, k) => c / t.counted[k]);
      const width = t.halfWidth.map((w, k) => w / t.counted[k]);
      const bias = t.estimate.map((e, k) => e / t.counted[k] - truths[k]);
      const cells = THRESHOLDS.map((_, k) => {
        const pc = (x: number) => (100 * x / t.counted[k]).toFixed(1);
        return `${(100 * coverage[k]).toFixed(1)} (${pc(t.below[k])}/${pc(t.above[k])}) ±${width[k].toFixed(3)} ${bias[k] >= 0 ? "+" : ""}${bias[k].toFixed(3)}`.padEnd(34);
      });
      line([sample, sampling, ...cells]);
      results.push({ regime: shape.name, sample, sampling, thresholds: THRESHOLDS, truth: truths, coverage, halfWidth: width, bias, counted: t.counted, below: t.below, above: t.above });
    };
    for (const n of shape.samples) {
      const design = stratifiedDesign(corpus.clusterOf, n);
      const stratified = tally();
      const uniform = tally();
      for (let seed = 1; seed <= replicates; seed++) {
        const sampled = drawStratified(design, seed);
        score(stratified, calibrationRows(reference(sampled), corpus.clusterOf, sampled, THRESHOLDS, design), truths);
        const drawn = sampleDocuments(shape.documents, n, seed);
        score(uniform, calibrationRows(reference(drawn), corpus.clusterOf, drawn, THRESHOLDS), truths);
      }
      report(String(n), "stratified", stratified);
      report(String(n), "uniform", uniform);
    }
    const grown = tally();
    for (let seed = 1; seed <= replicates; seed++) {
      const g = await growingCalibration(corpus.clusterOf, seed, { sample: 300, maxWidth: 0.04, maxSample: Math.max(...shape.samples) }, "stratified", reference, THRESHOLDS);
      score(grown, g.rows, truths);
    }
    report("300→±0.04", "stratified", grown);
  }
  if (values.json !== undefined) writeFileSync(values.json, JSON.stringify(results, null, 1) + "\n");
}

await main();
