import { createHash } from "node:crypto";
import { partitionNumbers } from "../../clusters/partitions.js";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { ExecutionOptions } from "../../core/options.js";
import { CALIBRATION_FILE } from "../../eval/calibration.js";
import { isComplete, markerDone, markersDone, type Pipeline, type Step, type StepContext, type StepProgress } from "../../executor/pipeline.js";
import { stderrReporter } from "../../executor/progress.js";
import { PhaseClock } from "../../executor/timing.js";
import { chunkPlanStep, chunkTotal } from "../../features/count-step.js";
import { writeReport } from "../../report/write-report.js";
import { ensureWritableDir } from "../../util/output-dir.js";
import { checkedDigests } from "../../workdir/batch-digest.js";
import { INDEX_MANIFEST, IndexUpdate, newIndex, removeIndex } from "../../workdir/index-store.js";
import { readMarker, writeKernelsMarker, writeMarker } from "../../workdir/layout.js";
import { withLocks } from "../../workdir/lock.js";
import { readRunConfig } from "../../workdir/run-config.js";
import { methodSummary, readManifest, writeManifest, type MethodManifest } from "../manifest.js";
import { refuseUncalibrated, type MethodRunner } from "../method.js";
import { featuresConfig, featuresStep, loadFeatures, startFeatures } from "./features-step.js";
import { graphFile, readGraph, writeGraph } from "./graph-file.js";
import { calibrateMethod } from "./method-calibration.js";
import { loadKnownEdges, saveBatch, saveEdges } from "./method-index.js";
import { outputStep } from "./output-step.js";
import { checkAgainst, readIndices, runDocuments, type RunDocuments } from "./run-documents.js";
import type { FeaturesConfig, Found, MethodRun, SetMethod } from "./set-method.js";
import { isSetMethod, SET_METHODS } from "./set-methods.js";
import { METHODS_WORKERS } from "./methods-entry.js";

/**
 * Everything a set method's run is given (`vertdup run --method`, `slurm run --method`):
 * stored in the work directory at a Slurm submission, so that every job builds the same pipeline.
 */
export interface SetMethodSettings {
  method: SetMethod;
  inputs: string[];
  outdir: string;
  /** The method's options and what the run adds (calibration, --against, --update, the index, --resume). */
  run: MethodRun;
  /** Reading options of the features step (config.json holds what decides its files) and the report's. */
  exec: Omit<ExecutionOptions, "workers" | "quiet" | "tmpDir">;
  /** Array size of the features step on Slurm. */
  tasks: number;
}

const warn = (m: string) => process.stderr.write(`vertdup: warning: ${m}\n`);

/**
 * A set method's pipeline (minhash, simhash384, exact, paragraphs; each says what it does in
 * its own folder, set-methods.ts): the corpus read into per-chunk feature shards, the
 * candidate search and its verification into a duplicate graph, the outputs, and as asked
 * the calibration and the index. With `--against` the indices' stored shards come before the
 * inputs' (method-index.ts), the outputs keep the clusters with a new document, and the
 * indices are held (locked) from before they are first read until the batch is appended.
 *
 * ```
 * plan* → features → search → output → calibrate? → index? → append?
 * ```
 * (*only where the reading runs as slices in other processes: a Slurm array)
 */
export function setMethodPipeline(workdir: string, s: SetMethodSettings): Pipeline {
  const { run } = s;
  const method = SET_METHODS[s.method];
  const against = run.against ?? [];
  const indices = (c: StepContext) => c.shared("indices", () => readIndices(run, method));
  const features = (c: StepContext) => c.shared("features", () => loadFeatures(workdir));
  const documents = (c: StepContext) => c.shared("documents", async (): Promise<RunDocuments> => runDocuments(await features(c), await indices(c)));
  const found = (c: StepContext) => c.shared("graph", async (): Promise<Found> => readGraph(workdir));
  // What decides each step's result, recorded in its marker: a step whose marker records
  // other settings (or another -o, for a step writing there) runs again.
  const searched = hashOf({ search: run.search, against });
  const { resume: _resume, ...decides } = run;
  const written = hashOf(decides);
  const request = run.calibrate;
  const calibration = request === undefined ? undefined : method.calibration;
  const done = (marker: string, fingerprint: string, file: string, outdir?: string) => async (): Promise<StepProgress> => {
    const m = await readMarker<{ fingerprint: string; outdir?: string }>(workdir, marker);
    const same = m?.fingerprint === fingerprint && (outdir === undefined || (m.outdir !== undefined && resolve(m.outdir) === resolve(outdir)));
    return { done: same && existsSync(file) ? 1 : 0, total: 1 };
  };
  const all: Step[] = [
    chunkPlanStep(workdir),
    {
      name: "features",
      arraySize: s.tasks,
      pools: [METHODS_WORKERS],
      timing: "features",
      run: async ({ slice, quiet, context }) => {
        const reporter = stderrReporter(quiet);
        if (method.kernels !== undefined) await writeKernelsMarker(workdir, "features", slice, method.kernels(run.features, (m) => reporter.info(m)));
        const config = (await readRunConfig(workdir)) as unknown as FeaturesConfig;
        const made = await featuresStep(workdir, config, slice, context.pool(METHODS_WORKERS), reporter);
        // All the shards, as the steps after it would read them back: theirs in this process (a Slurm task's slice is not all).
        if (slice.count === 1) await context.shared("features", async () => made);
      },
      progress: async () => markersDone(workdir, "features-", await chunkTotal(workdir)),
    },
    {
      name: "search",
      pools: [METHODS_WORKERS],
      timing: "search",
      run: async ({ context }) => {
        const docs = await documents(context);
        // Pairs inside one index are answered by its stored edges, where it keeps them.
        const known = method.keepsEdges && docs.indices.length > 0 ? loadKnownEdges(docs.indices, run.search.threshold) : undefined;
        const attr = run.features.partitionAttr;
        const part = attr === undefined ? undefined : partitionNumbers(docs.shards.map((x) => x.parts), attr);
        const { verified, ...result } = await method.search(docs.shards, docs.ids.length, run, { workdir, pool: context.pool(METHODS_WORKERS), known, part });
        // Verified candidates are a figure of a search that some index answered for.
        await writeGraph(workdir, known === undefined ? result : { ...result, verified });
        await writeMarker(workdir, "search", { fingerprint: searched });
      },
      progress: done("search", searched, graphFile(workdir)),
    },
    {
      name: "output",
      run: async ({ quiet, context }) => {
        // A calibrated run writes its report after calibration.tsv, so that the report shows it.
        const output = { outdir: s.outdir, inputs: s.inputs, report: run.report !== false && calibration === undefined, maxDocBytes: s.exec.maxDocBytes };
        await outputStep(workdir, method, run, await documents(context), await found(context), output, stderrReporter(quiet));
        await writeMarker(workdir, "output", { fingerprint: written, outdir: s.outdir });
      },
      progress: done("output", written, join(s.outdir, "manifest.json"), s.outdir),
    },
  ];
  if (request !== undefined && calibration !== undefined) {
    all.push({
      name: "calibrate",
      pools: [METHODS_WORKERS],
      run: async ({ context }) => {
        const clock = new PhaseClock();
        clock.start("calibrate");
        const docs = await documents(context);
        const calibrated = await calibrateMethod(calibration, run, docs.shards, docs.ids.length, workdir, s.outdir, context.pool(METHODS_WORKERS), request);
        clock.stop("calibrate");
        process.stderr.write(`vertdup: ${calibrated.summary}\n`);
        // The calibration goes before the phases, where a manifest written at once has it.
        const { phases, ...manifest } = JSON.parse(await readFile(join(s.outdir, "manifest.json"), "utf8")) as MethodManifest;
        await writeManifest(s.outdir, { ...manifest, calibration: calibrated.calibration, phases: { ...phases, ...clock.timings() } });
        if (run.report !== false) await writeReport(s.outdir, { seed: run.features.seed, maxDocBytes: s.exec.maxDocBytes, warn });
        await writeMarker(workdir, "calibrate", { fingerprint: written, outdir: s.outdir });
      },
      progress: done("calibrate", written, join(s.outdir, CALIBRATION_FILE), s.outdir),
    });
  }
  /** Adds the inputs' documents to an index (the run's documents from `firstNew` on) and commits it. */
  const appendTo = async (update: IndexUpdate, context: StepContext) => {
    const docs = await documents(context);
    await saveBatch(update, docs.fresh, docs.ids, docs.firstNew);
    // The edges among all of the index's documents (KnownEdges says why they stay exact).
    if (method.keepsEdges) await saveEdges(update, (await found(context)).graph.edges, docs.ids.length - update.manifest.documents, docs.ids.length, run.search.threshold);
    await update.commit();
  };
  // The digests of the inputs, checked against the indices: an input an index holds already is refused (--update) or warned of.
  const digests = async (c: StepContext) => c.shared("digests", async () => checkedDigests(await indices(c), s.inputs, run.update === true, warn));
  const indexStep: Step = {
    name: "index",
    run: async ({ context }) => {
      const { newDocuments } = await documents(context);
      await appendTo(new IndexUpdate(workdir, newIndex(run.method, method.indexOptions(run.features)), s.inputs, await digests(context), newDocuments), context);
      await writeMarker(workdir, "index", { fingerprint: searched });
    },
    progress: done("index", searched, join(workdir, INDEX_MANIFEST)),
  };
  if (run.saveIndex === true) all.push(indexStep);
  if (run.update === true) {
    all.push({
      name: "append",
      run: async ({ context }) => {
        const [index] = await indices(context);
        await appendTo(new IndexUpdate(index.dir, index.manifest, s.inputs, await digests(context), (await documents(context)).newDocuments), context);
        await writeMarker(workdir, "append", { index: index.dir });
      },
      progress: async () => markerDone(workdir, "append"),
    });
  }
  return {
    workdir,
    steps: all,
    start: async (context) => {
      if (run.calibrate !== undefined) refuseUncalibrated(run.method);
      await ensureWritableDir(s.outdir);
      await checkAgainst(run, workdir);
      // Checked before any work.
      if (against.length > 0) await digests(context);
      await startFeatures(workdir, await featuresConfig(s.inputs, method.features.task, run.features, s.exec, workdir, run.resume === true), run.resume === true);
      // A work directory left as an index is no index while the run that remakes it is under way.
      if (run.saveIndex === true && !isComplete(await indexStep.progress())) await removeIndex(workdir);
    },
    ...(against.length > 0 ? { unit: { name: "supplement", marker: unitMarker(s), hold: (body) => withLocks(against, body) } } : {}),
  };
}


/**
 * The marker of a pipeline that Slurm runs as one job (`--against`): it names what decides
 * its outputs, so that a submission with other options or another -o runs it again; with
 * --update not for another -o, so that the batch is appended once.
 */
function unitMarker(s: SetMethodSettings): string {
  const { outdir: _outdir, tasks: _tasks, ...decides } = s;
  return `supplement-${hashOf(s.run.update === true ? decides : { ...decides, outdir: s.outdir })}`;
}

function hashOf(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16);
}

/** The set methods as the registry runs them (methods/method.ts): one pipeline, each method's part from SET_METHODS. */
export const SET_METHOD: MethodRunner<SetMethodSettings> = {
  settings: (r) => {
    if (!isSetMethod(r.method)) throw new Error(`${r.method} is not a set method`);
    const { threshold } = r.search;
    const { bands, rows } = SET_METHODS[r.method].banding?.(threshold, r.features.numPerm, r.features.bands, r.features.rows) ?? { bands: 1, rows: 1 };
    const f = r.features;
    const features = { column: f.column, idAttr: f.idAttr, ...(f.partitionAttr === undefined ? {} : { partitionAttr: f.partitionAttr }), normalize: f.normalize, lowercase: f.lowercase, keepNumbers: f.keepNumbers, shingleSize: f.shingleSize, numPerm: f.numPerm, bands, rows, seed: f.seed, shortTokens: f.shortTokens };
    const run: MethodRun = {
      method: r.method,
      features,
      search: r.search,
      keep: r.keep,
      pairs: r.pairs,
      report: r.report,
      ...(r.calibrate === undefined ? {} : { calibrate: r.calibrate }),
      resume: r.resume,
      against: r.against,
      update: r.update,
      saveIndex: r.saveIndex,
    };
    return { method: r.method, inputs: r.inputs, outdir: r.outdir, run, exec: r.exec, tasks: r.tasks };
  },
  pipeline: setMethodPipeline,
  // A local run checks the indices under their locks, as it reads them (the pipeline's start).
  check: async (s, submittedTo) => {
    if (submittedTo === undefined) return;
    await checkAgainst(s.run, submittedTo);
    await readIndices(s.run, SET_METHODS[s.method]);
  },
  finished: async (outdir) => {
    const manifest = await readManifest<MethodManifest>(outdir);
    return { manifest, summary: methodSummary(outdir, manifest) };
  },
};
