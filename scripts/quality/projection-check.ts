/**
 * int8 against float32 projections (issue 14): how well the Hamming similarity of the
 * signatures finds the pairs of high exact cosine, with each kind of random vector.
 *
 *   node dist/scripts/quality/projection-check.js [--corpus data-samples/kjv-3000.vert.gz]
 *       [--generated 5000] [--seeds 1,2,3,4,5] [--workers 2] [--json out.json]
 *
 * For the corpus and a generated one (scripts/generate-corpus.ts, seed 1, `--generated`
 * documents, 10 % planted copies), for tf and tf-idf, and for each signature seed, both
 * projections are prepared (1024 bits) and judged against the exact cosine of the same
 * vectors (`vertdup similarity`, ≥ 0.8) by the exact Hamming pairs (`hamming-full`, ≥ 0.85):
 * - recall of the pairs with cosine ≥ 0.97 and ≥ 0.9 at Hamming thresholds 0.85, 0.90, 0.95;
 * - precision of the Hamming pairs at those thresholds against cosine ≥ 0.8 and ≥ 0.9;
 * - L1, L2 (mean |h − c| and (h − c)²) over the pairs of cosine ≥ 0.8 and 2,000 random pairs;
 * - the share of signature bits that differ between the two projections.
 * Prints mean ± standard deviation over the seeds per corpus, weighting and projection.
 *
 * `--baseline B.json`: the `--json` of the same command run by another build (e.g. int8 tf-idf
 * with float64 weights, before the fixed point of issue 14) adds its int8 column, "int8 (baseline)",
 * and says whether it equals this int8 column on every measure; its float32 column must equal
 * this one (the same corpora, seeds and float32 method).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { WorkerPool } from "../../src/executor/pool.js";
import { REFERENCE_WORKERS } from "../../src/eval/exact/reference-entry.js";
import type { Projection } from "../../src/core/options.js";
import { signatureOfDocument } from "../../src/output/pairs.js";
import { hammingDistance } from "../../src/pleb/hamming.js";
import type { ScoredPairs } from "../../src/eval/pairs-file.js";
import type { SparseRows } from "../../src/features/sparse-rows.js";
import { DEFAULT_GENERATOR, generateCorpus } from "../generate-corpus.js";
import { cosineAndHamming, judgedPairs, prepareCorpus, timedHammingFull, timedSimilarity, type Prepared } from "../thesis/experiments.js";

const BITS = 1024;
/** signatureOfDocument's mark of a document without a signature. */
const NONE = 0xffffffff;
const HAMMING = [0.85, 0.9, 0.95];
const RECALL_COSINE = [0.97, 0.9];
const PRECISION_COSINE = [0.8, 0.9];
const PROJECTIONS: Projection[] = ["float32", "int8"];

type Measures = Record<string, number>;
type MeanSd = { mean: number; sd: number };
/** One row of the `--json` report. */
interface ReportRow {
  corpus: string;
  weighting: string;
  seeds: number[];
  measures: Record<string, Record<Projection, MeanSd>>;
  differingBits: MeanSd;
}

/** Pairs as keys a·n + b (a < b, corpus ordinals) with their similarity. */
function keyed(pairs: ScoredPairs, n: number): Map<number, number> {
  const out = new Map<number, number>();
  for (let k = 0; k < pairs.a.length; k++) out.set(Math.min(pairs.a[k], pairs.b[k]) * n + Math.max(pairs.a[k], pairs.b[k]), pairs.similarity[k]);
  return out;
}

function measures(cosine: Map<number, number>, hamming: Map<number, number>, judged: { c: number[]; h: number[] }): Measures {
  const out: Measures = {};
  for (const c of RECALL_COSINE) {
    for (const t of HAMMING) {
      let relevant = 0;
      let found = 0;
      for (const [key, cos] of cosine) {
        if (cos < c) continue;
        relevant++;
        if ((hamming.get(key) ?? 0) >= t) found++;
      }
      out[`recall cos≥${c} @h≥${t}`] = relevant === 0 ? Number.NaN : found / relevant;
    }
  }
  for (const c of PRECISION_COSINE) {
    for (const t of HAMMING) {
      let reported = 0;
      let right = 0;
      for (const [key, h] of hamming) {
        if (h < t) continue;
        reported++;
        if ((cosine.get(key) ?? 0) >= c) right++;
      }
      out[`precision cos≥${c} @h≥${t}`] = reported === 0 ? Number.NaN : right / reported;
    }
  }
  let l1 = 0;
  let l2 = 0;
  for (let k = 0; k < judged.c.length; k++) {
    const d = judged.h[k] - judged.c[k];
    l1 += Math.abs(d);
    l2 += d * d;
  }
  out["L1"] = l1 / judged.c.length;
  out["L2 ×1e4"] = (1e4 * l2) / judged.c.length;
  out["hamming pairs ≥0.85"] = hamming.size;
  return out;
}

/** Share of signature bits that differ between two preparations of the same corpus. */
function differingBits(a: Prepared, b: Prepared): number {
  const n = a.manifest.counts.documents;
  const sa = signatureOfDocument(a.store, n);
  const sb = signatureOfDocument(b.store, n);
  const words = a.store.words;
  const scratch = new Uint32Array(2 * words);
  let differ = 0;
  let signed = 0;
  for (let d = 0; d < n; d++) {
    if (sa[d] === NONE || sb[d] === NONE) continue;
    scratch.set(a.store.signatures.subarray(sa[d] * words, (sa[d] + 1) * words), 0);
    scratch.set(b.store.signatures.subarray(sb[d] * words, (sb[d] + 1) * words), words);
    differ += hammingDistance(scratch, 0, 1, words);
    signed++;
  }
  return differ / (signed * words * 32);
}

const meanSd = (xs: number[]) => {
  const m = xs.reduce((s, x) => s + x, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / Math.max(1, xs.length - 1));
  return { mean: m, sd };
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      corpus: { type: "string", default: "data-samples/kjv-3000.vert.gz" },
      generated: { type: "string", default: "5000" },
      seeds: { type: "string", default: "1,2,3,4,5" },
      workers: { type: "string", default: "2" },
      json: { type: "string" },
      baseline: { type: "string" },
    },
  });
  const baseline = values.baseline === undefined ? null : (JSON.parse(readFileSync(values.baseline, "utf8")) as ReportRow[]);
  const workers = Number(values.workers);
  const seeds = values.seeds.split(",").map(Number);
  const scratch = mkdtempSync(join(tmpdir(), "vertdup-projection-"));
  const pool = new WorkerPool(REFERENCE_WORKERS, workers);
  const report: ReportRow[] = [];
  try {
    const generated = join(scratch, "generated.vert");
    await generateCorpus(generated, join(scratch, "generated.truth.tsv"), { ...DEFAULT_GENERATOR, docs: Number(values.generated) });
    for (const [name, corpus] of [[values.corpus, values.corpus], [`generated-${values.generated}`, generated]]) {
      for (const weighting of ["tf", "tfidf"] as const) {
        const per: Record<Projection, Measures[]> = { float32: [], int8: [] };
        const differ: number[] = [];
        let cosine: Map<number, number> | null = null;
        let rows: SparseRows | null = null;
        let judged: [number, number][] = [];
        for (const seed of seeds) {
          const prepared: Prepared[] = [];
          for (const projection of PROJECTIONS) {
            const dir = join(scratch, `${weighting}-${seed}-${projection}`);
            const p = await prepareCorpus(corpus, dir, BITS, workers, weighting, { projection, seed });
            const n = p.manifest.counts.documents;
            if (cosine === null || rows === null) {
              const exact = await timedSimilarity(p, Math.min(...PRECISION_COSINE), pool);
              cosine = keyed(exact.pairs, n);
              rows = exact.rows;
              judged = judgedPairs(exact.pairs, n, 2000);
            }
            const hamming = keyed((await timedHammingFull(p, HAMMING[0], pool)).pairs, n);
            per[projection].push(measures(cosine, hamming, cosineAndHamming(rows, p, judged)));
            prepared.push(p);
          }
          differ.push(differingBits(prepared[0], prepared[1]));
          for (const p of prepared) rmSync(p.workdir, { recursive: true, force: true });
        }
        process.stdout.write(`\n${name}, ${weighting}, ${seeds.length} seeds (mean ± sd): ${cosine?.size ?? 0} pairs of cosine ≥ 0.8\n`);
        const base = baseline?.find((r) => r.corpus === name && r.weighting === weighting && r.seeds.join() === seeds.join());
        if (baseline !== null && base === undefined) throw new Error(`${values.baseline}: no row for ${name}, ${weighting}, seeds ${seeds.join()}`);
        process.stdout.write(`${"measure".padEnd(28)} ${"float32".padStart(20)} ${"int8".padStart(20)}${base === undefined ? "" : " " + "int8 (baseline)".padStart(20)}\n`);
        const table: Record<string, Record<Projection, MeanSd>> = {};
        for (const key of Object.keys(per.float32[0])) {
          const [f, q] = PROJECTIONS.map((pr) => meanSd(per[pr].map((m) => m[key])));
          // JSON holds NaN (no relevant pair) as null.
          const fmt = (x: MeanSd) => `${(x.mean ?? Number.NaN).toFixed(4)} ± ${(x.sd ?? Number.NaN).toFixed(4)}`.padStart(20);
          const other = base?.measures[key];
          // The baseline's float32 column is the same method on the same corpora: any difference means another setup.
          if (other !== undefined && JSON.stringify(other.float32) !== JSON.stringify(f)) throw new Error(`${values.baseline}: float32 ${key} differs (${other.float32.mean} against ${f.mean}): not the same corpora or method`);
          process.stdout.write(`${key.padEnd(28)} ${fmt(f)} ${fmt(q)}${other === undefined ? "" : " " + fmt(other.int8)}\n`);
          table[key] = { float32: f, int8: q };
        }
        if (base !== undefined) process.stdout.write(`int8 equal to the baseline's on every measure: ${Object.keys(table).every((k) => JSON.stringify(table[k].int8) === JSON.stringify(base.measures[k]?.int8)) ? "yes" : "no"}\n`);
        const d = meanSd(differ);
        process.stdout.write(`bits differing float32 vs int8: ${(100 * d.mean).toFixed(3)} % ± ${(100 * d.sd).toFixed(3)}${base === undefined ? "" : ` (baseline: ${(100 * base.differingBits.mean).toFixed(3)} % ± ${(100 * base.differingBits.sd).toFixed(3)})`}\n`);
        report.push({ corpus: name, weighting, seeds, measures: table, differingBits: d });
      }
    }
  } finally {
    await pool.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  if (values.json !== undefined) writeFileSync(values.json, JSON.stringify(report, null, 2) + "\n");
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
