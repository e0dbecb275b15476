/**
 * Benchmark harness: `npm run bench -- [options]`.
 *
 *   --docs N            generate (once, cached in --data) a synthetic corpus of N documents
 *   --input FILE        or benchmark an existing corpus (--truth FILE for recall)
 *   --synth N           PLEB phase only: a synthetic store of N signatures (scripts/synth-store.ts)
 *   --phase P           floor | prepare | pleb | run | all (default all = floor, prepare, pleb)
 *   --workers W         worker threads (default: cores)
 *   --repeat R          runs per phase; medians are reported (default 1)
 *   --data DIR          where corpora and work directories go (default $TMPDIR/vertdup-bench)
 *   --save FILE         JSON results (default bench-results/<label>.json)
 *   --method M          run phase only: `vertdup run --method M` (minhash, simhash384, …)
 *   --threshold, --beam, --shift-count, --iterations, --bits   passed to vertdup
 *   --projection P[,Q]  prepare/run phases: --projection of each (int8, float32); with two,
 *                       their runs alternate (P, Q, P, Q, …) in separate work directories and
 *                       a last line gives the per-pair ratios Q/P of the sign pass and of the wall time
 *
 * Per phase it prints and saves: wall seconds (median and all runs), CPU seconds of the
 * process (user + system, all threads: comparable when other jobs share the machine), wall
 * and CPU milliseconds per document, documents/s, tokens/s,
 * PLEB signature comparisons/s, peak RSS of the vertdup process, recall of planted pairs
 * (per edit rate, and over edit rates ≤ 2%), the decompress-and-read floor of the input and
 * the prepare time as a multiple of it. Each phase runs the built CLI as a child process, so
 * its RSS is its own.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DEFAULT_GENERATOR, generateCorpus } from "./generate-corpus.js";
import { DEFAULT_SYNTH, synthesizeStore } from "./synth-store.js";
import { measureNode, median, type Measured } from "./bench/measure.js";
import { readFloor } from "./bench/read-floor.js";
import { plantedRecall } from "./bench/recall.js";

const CLI = fileURLToPath(new URL("../src/cli.js", import.meta.url));

type Phase = "floor" | "prepare" | "pleb" | "run";

interface PhaseResult {
  phase: Phase;
  runs: Measured[];
  seconds: number;
  peakRssMiB: number;
  cpuSeconds?: number;
  [key: string]: unknown;
}

function summarize(phase: Phase, runs: Measured[], extra: Record<string, unknown>): PhaseResult {
  const cpu = runs.flatMap((r) => (r.cpuSeconds === undefined ? [] : [r.cpuSeconds]));
  const cpuSeconds = cpu.length === runs.length ? Number(median(cpu).toFixed(3)) : undefined;
  return { phase, seconds: Number(median(runs.map((r) => r.seconds)).toFixed(3)), cpuSeconds, peakRssMiB: Math.max(...runs.map((r) => r.peakRssMiB)), runs, ...extra };
}

const rate = (count: number, seconds: number) => Math.round(count / seconds);
const perDocument = (seconds: number, documents: number) => Number(((seconds * 1000) / documents).toFixed(4));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      docs: { type: "string" },
      input: { type: "string" },
      truth: { type: "string" },
      synth: { type: "string" },
      phase: { type: "string", default: "all" },
      workers: { type: "string", default: String(cpus().length) },
      repeat: { type: "string", default: "1" },
      data: { type: "string", default: join(tmpdir(), "vertdup-bench") },
      save: { type: "string" },
      threshold: { type: "string" },
      beam: { type: "string" },
      "shift-count": { type: "string" },
      iterations: { type: "string" },
      bits: { type: "string" },
      method: { type: "string" },
      projection: { type: "string" },
    },
  });
  const repeat = Number(values.repeat);
  const workers = values.workers;
  const data = values.data;
  mkdirSync(data, { recursive: true });
  const phases: Phase[] = values.phase === "all" ? ["floor", "prepare", "pleb"] : [values.phase as Phase];
  const method = values.method === undefined ? [] : ["--method", values.method];
  if (method.length > 0 && phases.some((p) => p !== "run")) throw new Error("--method benchmarks the run phase only (--phase run)");
  const plebArgs = (["threshold", "beam", "shift-count", "iterations"] as const).flatMap((k) => (values[k] === undefined ? [] : [`--${k}`, values[k] as string]));
  // A synthetic store has signatures but no term counts to verify pairs with (the thesis's PLEB did not verify either).
  if (values.synth !== undefined) plebArgs.push("--no-verify");
  const prepArgs = values.bits === undefined ? [] : ["--bits", values.bits];
  const exec = ["--workers", workers, "--quiet"];

  let input = values.input;
  let truth = values.truth;
  let label: string;
  let workdir: string;
  if (values.synth !== undefined) {
    const n = Number(values.synth);
    label = `synth-${n}`;
    workdir = join(data, label);
    if (!existsSync(join(workdir, "prepare.json"))) {
      await synthesizeStore(workdir, { ...DEFAULT_SYNTH, signatures: n, bits: Number(values.bits ?? DEFAULT_SYNTH.bits) });
    }
    truth = join(workdir, "truth.tsv");
    if (phases.some((p) => p !== "pleb")) throw new Error("--synth benchmarks the pleb phase only");
  } else {
    if (input === undefined) {
      if (values.docs === undefined) throw new Error("give --docs N, --input FILE or --synth N");
      const n = Number(values.docs);
      input = join(data, `gen-${n}.vert.zst`);
      truth = join(data, `gen-${n}.truth.tsv`);
      if (!existsSync(truth)) {
        process.stderr.write(`generating ${n} documents → ${input}\n`);
        await generateCorpus(input, truth, { ...DEFAULT_GENERATOR, docs: n });
      }
    }
    label = input.replace(/^.*\//, "").replace(/\.vert(\.gz|\.zst)?$/, "") + (values.method === undefined ? "" : `-${values.method}`);
    workdir = join(data, `work-${label}`);
  }
  const outdir = join(data, `out-${label}`);

  // One (work directory, output directory, arguments) per --projection; runs alternate between them.
  const variants = (values.projection?.split(",") ?? [undefined]).map((projection) => {
    const suffix = projection === undefined || values.projection === projection ? "" : `-${projection}`;
    return { projection, workdir: workdir + suffix, outdir: outdir + suffix, args: projection === undefined ? [] : ["--projection", projection] };
  });
  const results: PhaseResult[] = [];
  const comparisons: object[] = [];
  type Timed = { phases: Record<string, { seconds: number }> };
  const prepared = (w: string) => JSON.parse(readFileSync(join(w, "prepare.json"), "utf8")) as Timed & { counts: { documents: number; tokens: number } };
  /** Median seconds per phase over the runs' manifests. */
  const phaseMedians = (manifests: Timed[]) =>
    Object.fromEntries(Object.keys(manifests[0].phases).map((k) => [k, Number(median(manifests.map((m) => m.phases[k]?.seconds ?? Number.NaN)).toFixed(3))]));
  /** Per repeat, run `args(variant)` for every variant in turn; `after` reads what the run left. */
  async function alternate(args: (v: (typeof variants)[number]) => string[], after: (v: (typeof variants)[number]) => Timed): Promise<{ runs: Measured[]; manifests: Timed[] }[]> {
    const out = variants.map(() => ({ runs: [] as Measured[], manifests: [] as Timed[] }));
    for (let r = 0; r < repeat; r++) {
      for (const [i, v] of variants.entries()) {
        out[i].runs.push(await measureNode(args(v)));
        out[i].manifests.push(after(v));
      }
    }
    return out;
  }
  /** With two projections: the ratios second/first of the sign pass and of the wall time, run by run. */
  function compare(phase: Phase, measured: { runs: Measured[]; manifests: Timed[] }[]): void {
    if (variants.length !== 2) return;
    const [a, b] = measured;
    const ratios = (f: (m: { runs: Measured[]; manifests: Timed[] }, r: number) => number) => a.runs.map((_, r) => Number((f(a, r) / f(b, r)).toFixed(3)));
    const sign = ratios((m, r) => m.manifests[r].phases.sign.seconds);
    const wall = ratios((m, r) => m.runs[r].seconds);
    const line = { phase, compare: `${variants[0].projection} / ${variants[1].projection}`, signRatios: sign, signRatioMedian: median(sign), wallRatios: wall, wallRatioMedian: median(wall) };
    process.stdout.write(JSON.stringify(line) + "\n");
    comparisons.push(line);
  }
  let floorSeconds: number | undefined;
  // Planted-pair truth (`copy_id source_id edit_rate`); the web shape's truth is read by scripts/quality/clusters-check.ts.
  const plantedTruth = truth !== undefined && existsSync(truth) && readFileSync(truth, "utf8").slice(0, 8) === "copy_id\t";
  const recallOf = async (dir: string) => (plantedTruth ? plantedRecall(join(dir, "clusters.tsv"), truth as string) : null);
  for (const phase of phases) {
    const runs: Measured[] = [];
    if (phase === "floor") {
      for (let r = 0; r < repeat; r++) {
        const f = await readFloor(input as string);
        runs.push({ seconds: f.seconds, peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) });
        if (r === 0) process.stderr.write(`floor: ${f.bytes} bytes, ${f.lines} lines\n`);
      }
      const res = summarize(phase, runs, {});
      floorSeconds = res.seconds;
      results.push(res);
      process.stdout.write(JSON.stringify({ ...res, runs: undefined }) + "\n");
    } else if (phase === "prepare") {
      const measured = await alternate((v) => [CLI, "prepare", input as string, "-w", v.workdir, ...prepArgs, ...v.args, ...exec], (v) => prepared(v.workdir));
      for (const [i, v] of variants.entries()) {
        const { counts } = prepared(v.workdir);
        const res = summarize(phase, measured[i].runs, { projection: v.projection, documents: counts.documents, tokens: counts.tokens });
        res.docsPerSecond = rate(counts.documents, res.seconds);
        res.tokensPerSecond = rate(counts.tokens, res.seconds);
        res.phaseSeconds = phaseMedians(measured[i].manifests);
        if (floorSeconds !== undefined) res.ratioToFloor = Number((res.seconds / floorSeconds).toFixed(2));
        results.push(res);
        process.stdout.write(JSON.stringify({ ...res, runs: undefined }) + "\n");
      }
      compare(phase, measured);
    } else {
      const args = (v: (typeof variants)[number]) =>
        phase === "pleb" ? [CLI, "pleb", "-w", v.workdir, "-o", v.outdir] : [CLI, "run", input as string, "-w", v.workdir, "-o", v.outdir, ...method, ...prepArgs, ...v.args];
      type RunManifest = Timed & { counts: { documents: number; tokens: number; comparisons?: number; candidates?: number; pairs: number } };
      const manifestOf = (v: (typeof variants)[number]) => JSON.parse(readFileSync(join(v.outdir, "manifest.json"), "utf8")) as RunManifest;
      const measured = await alternate((v) => [...args(v), ...plebArgs, ...exec], manifestOf);
      for (const [i, v] of variants.entries()) {
        const manifest = manifestOf(v);
        const { counts } = manifest;
        const res = summarize(phase, measured[i].runs, { projection: v.projection, documents: counts.documents, tokens: counts.tokens, pairs: counts.pairs });
        res.docsPerSecond = rate(counts.documents, res.seconds);
        res.msPerDocument = perDocument(res.seconds, counts.documents);
        const cpu = res.cpuSeconds;
        if (typeof cpu === "number") res.cpuMsPerDocument = perDocument(cpu, counts.documents);
        if (counts.tokens > 0) res.tokensPerSecond = rate(counts.tokens, res.seconds);
        if (counts.comparisons !== undefined) {
          res.comparisons = counts.comparisons;
          res.comparisonsPerSecond = rate(counts.comparisons, manifest.phases.pleb?.seconds ?? res.seconds);
        }
        if (counts.candidates !== undefined) res.candidates = counts.candidates;
        res.phaseSeconds = phaseMedians(measured[i].manifests);
        res.recall = await recallOf(v.outdir);
        res.outputBytes = readdirSync(v.outdir).reduce((n, f) => n + statSync(join(v.outdir, f)).size, 0);
        results.push(res);
        process.stdout.write(JSON.stringify({ ...res, runs: undefined }) + "\n");
      }
      if (phase === "run") compare(phase, measured);
    }
  }
  const report = { label, input: input ?? null, workers: Number(workers), repeat, cpus: cpus().length, loadavg: loadavg(), date: new Date().toISOString(), node: process.version, results, comparisons };
  const save = values.save ?? join("bench-results", `${label}-${values.phase}-w${workers}.json`);
  mkdirSync(dirname(save), { recursive: true });
  writeFileSync(save, JSON.stringify(report, null, 2) + "\n");
  process.stderr.write(`saved ${save}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
