import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { emptyDocumentsWarning, skippedDocumentsWarning } from "../../corpus/run-warnings.js";
import { checkReadable } from "../../corpus/open-input.js";
import type { KeepPolicy } from "../../core/method-options.js";
import { DEFAULT_PLEB, SHIFTS_PER_BIT, type ExecutionOptions, type PlebOptions, type PrepareOptions } from "../../core/options.js";
import { VertdupError } from "../../core/errors.js";
import { markerDone, markersDone, runLocally, type Pipeline, type Step, type StepContext, type StepProgress } from "../../executor/pipeline.js";
import { stderrReporter } from "../../executor/progress.js";
import { timed } from "../../executor/timing.js";
import { chunkPlanStep, chunkTotal, countStep } from "../../features/count-step.js";
import { readPrepareManifest, type PrepareManifest } from "../../features/prepare-manifest.js";
import { vocabularyStep } from "../../features/vocabulary-step.js";
import { partitionUnits, recallSampler, type SampleRecall } from "../../eval/sample-recall.js";
import { firstGroupPairs, planVerifier, plebPhaseName, plebPlan, plebStep, resetPlan, type PlebPlan, type ScanScope } from "../../pleb/pleb-step.js";
import type { PairColumns } from "../../pleb/spanning-forest.js";
import { sortedKeysDir } from "../../pleb/stored-keys.js";
import { partitionEntries, type PartitionEntries } from "../../pleb/partition-order.js";
import { partitionNumbers } from "../../clusters/partitions.js";
import { loadDocParts } from "../../clusters/doc-table.js";
import type { PairVerifier } from "../../pleb/pair-verifier.js";
import { mergeStep, writePrepareManifest } from "../../runs/merge-step.js";
import { loadSignatureStore, type SignatureStore } from "../../runs/signature-store.js";
import { projectionFormat } from "../../sketch/random-vectors.js";
import { signStep } from "../../sketch/sign-step.js";
import { wordsPerSignature } from "../../sketch/signature.js";
import { checkedDigests } from "../../workdir/batch-digest.js";
import { createWorkdir, readMarker, resetWorkdir, writeMarker } from "../../workdir/layout.js";
import { withLocks } from "../../workdir/lock.js";
import { adoptRunConfig, chunkBytesFor, readRunConfig, stampInputs, type RunConfig } from "../../workdir/run-config.js";
import { batchTerms, checkAgainst, SupplementedCorpus, type AgainstScan } from "./against.js";
import { calibrateStep, type CalibrationRequest } from "./calibrate-step.js";
import { LshIndex, saveRunIndex } from "./index.js";
import { checkReference, outputStep } from "./output-step.js";
import { ensureWritableDir } from "../../util/output-dir.js";
import { readManifest, runSummary, type RunManifest } from "../manifest.js";
import type { MethodRunner } from "../method.js";
import { PLEB_WORKERS } from "../../pleb/pleb-entry.js";
import { PREPARE_WORKERS } from "../../sketch/prepare-entry.js";

/**
 * Everything an lsh-cosine run is given (`vertdup run`, `slurm run`, `prepare` and `pleb`):
 * stored in the work directory at a Slurm submission, so that every job builds the same pipeline.
 */
export interface LshCosineSettings {
  method: "lsh-cosine";
  inputs: string[];
  outdir: string;
  prepare: PrepareOptions;
  pleb: PlebOptions;
  keep: KeepPolicy;
  /** `--pairs-limit` of the output step (the mode is part of `pleb`). */
  pairsLimit: number;
  /** A pairs file to follow PLEB's recall against (`pleb --reference`). */
  reference?: string;
  /** report.html (after calibration.tsv when calibrating). */
  report: boolean;
  /** `--resume`: keep what an interrupted run in the work directory finished. */
  resume: boolean;
  /** Saved indices (`--against`) whose documents come before the inputs'. */
  against: string[];
  againstScan: AgainstScan;
  /** `--update`: append the inputs to the only `--against` index once the outputs are written. */
  update: boolean;
  /** Leave the work directory as an index of the inputs (a `-w` given, no `--against`). */
  saveIndex: boolean;
  /** `--estimate-recall`: calibrate after the outputs. */
  calibrate?: Omit<CalibrationRequest, "sample">;
  /** Array size of the reading steps (count and sign) on Slurm. */
  tasks: number;
  exec: Omit<ExecutionOptions, "workers" | "quiet" | "tmpDir">;
}

/** The projectionFormat of a configuration: recorded for int8 vectors only, so float32 work directories keep their fingerprint. */
function withFormat(options: PrepareOptions): Pick<RunConfig, "projectionFormat"> {
  const format = projectionFormat(options.projection);
  return format === undefined ? {} : { projectionFormat: format };
}

/**
 * Checks the inputs and options of the preparatory steps and records them in the work
 * directory (config.json), clearing it unless `resume` finds the same configuration there.
 */
export async function startPrepare(inputs: readonly string[], workdir: string, options: PrepareOptions, exec: LshCosineSettings["exec"], resume: boolean, firstOrdinal?: number): Promise<RunConfig> {
  wordsPerSignature(options.bits);
  for (const input of inputs) await checkReadable(input);
  if (inputs.filter((i) => i === "-").length > 1) throw new VertdupError("standard input (-) can be given only once");
  await createWorkdir(workdir);
  const config: RunConfig = { inputs: await stampInputs(inputs), prepare: options, chunkBytes: chunkBytesFor(exec.chunkBytes, workdir, resume), maxDocBytes: exec.maxDocBytes, ...(exec.oversize === "skip" ? { oversize: "skip" } : {}), ...(firstOrdinal === undefined ? {} : { firstOrdinal }), ...withFormat(options) };
  if (!(await adoptRunConfig(workdir, config, resume))) await resetWorkdir(workdir);
  return config;
}

/** Done once its marker names `outdir` and the output there is in place (another -o is written again). */
function doneInto(workdir: string, marker: string, outdir: string, file: string): () => Promise<StepProgress> {
  return async () => {
    const m = await readMarker<{ outdir: string }>(workdir, marker);
    const done = m !== undefined && resolve(m.outdir) === resolve(outdir) && existsSync(join(outdir, file));
    return { done: done ? 1 : 0, total: 1 };
  };
}

/** The pairs of PLEB's first iteration group: the sampled recall's strata. */
type FirstGroup = Pick<PairColumns, "i" | "j">;

const warn = (m: string) => process.stderr.write(`vertdup: warning: ${m}\n`);

/**
 * The lsh-cosine pipeline, the thesis's: the corpus read into term counts (count), the
 * vocabulary and its weights, signatures in sorted runs (sign), the merged signature store,
 * PLEB's iteration groups, the outputs, and as asked the calibration and the index. With
 * `--against` the indices are held (locked) from before they are first read until the
 * batch is appended: the batch's ordinals follow theirs, it is signed with their frozen
 * weights, merged with their stores, and PLEB and the outputs cover their documents too.
 *
 * ```
 * plan* → count → vocabulary → sign → merge → pleb → output → calibrate? → index?
 * ```
 * (*only where the reading runs as slices in other processes: a Slurm array)
 */
export function lshCosinePipeline(workdir: string, s: LshCosineSettings, steps?: readonly string[]): Pipeline {
  const plan = plebPlan(workdir, s.pleb, s.exec.iterationsPerGroup, s.prepare.partitionAttr !== undefined);
  const against = s.against.length > 0;
  const config = () => readRunConfig(workdir);
  const supplement = (c: StepContext) => c.shared("supplement", () => SupplementedCorpus.open(s.against, s.prepare, s.againstScan));
  const store = (c: StepContext) => c.shared("store", async (): Promise<SignatureStore> => loadSignatureStore(workdir, (await readPrepareManifest(workdir)).options.bits));
  const scope = (c: StepContext) =>
    c.shared("scope", async (): Promise<ScanScope | undefined> => {
      if (!against) return undefined;
      const prepared = await readPrepareManifest(workdir);
      const corpus = await supplement(c);
      return corpus.scanScope(await store(c), corpus.firstOrdinal + prepared.counts.documents, plan.options, warn);
    });
  const verifier = (c: StepContext) =>
    c.shared("verifier", async (): Promise<PairVerifier | undefined> => {
      const threshold = plan.options.cosineThreshold;
      const pool = c.pool(PLEB_WORKERS);
      if (!against || threshold === undefined) return planVerifier(workdir, await store(c), plan, pool);
      return (await supplement(c)).verifier(workdir, await readPrepareManifest(workdir), await store(c), threshold, pool, await scope(c));
    });
  // --partition-attr: each document's partition number.
  const docPartitions = (c: StepContext) =>
    c.shared("docPartitions", async (): Promise<Uint32Array | undefined> => {
      const attr = s.prepare.partitionAttr;
      if (attr === undefined) return undefined;
      const { shards } = (await readPrepareManifest(workdir)).counts;
      return partitionNumbers(against ? (await supplement(c)).parts(workdir, shards) : loadDocParts(workdir, shards), attr);
    });
  // PLEB's search keyed by partition, over the store's (partition, signature) entries.
  const partition = (c: StepContext) =>
    c.shared("partition", async (): Promise<PartitionEntries | undefined> => {
      const part = await docPartitions(c);
      return part === undefined ? undefined : partitionEntries(await store(c), part);
    });
  // The sampled recall (--estimate-recall): drawn from the first iteration group's pairs.
  const recall = (c: StepContext, firstGroup: () => FirstGroup, quiet: boolean) =>
    c.shared("recall", async (): Promise<SampleRecall> => {
      const documents = (await readPrepareManifest(workdir)).counts.documents;
      // Partitioned, the recall of the pairs within one partition: the only ones the keyed search looks for.
      const part = await docPartitions(c);
      const units = part === undefined ? undefined : partitionUnits(await store(c), part);
      return recallSampler(await store(c), documents, plan.options, c.workers, stderrReporter(quiet), await verifier(c), units)(firstGroup());
    });
  const reading = (name: "count" | "sign"): Step => ({
    name,
    arraySize: s.tasks,
    pools: [PREPARE_WORKERS],
    timing: name,
    run: async ({ slice, quiet, context }) => {
      const reporter = stderrReporter(quiet);
      const pool = context.pool(PREPARE_WORKERS);
      if (name === "count") await countStep(workdir, await config(), slice, pool, reporter);
      else {
        const corpus = against ? await supplement(context) : undefined;
        await signStep(workdir, await config(), slice, pool, reporter, corpus && ((kept) => corpus.weights(kept)));
      }
    },
    progress: async () => markersDone(workdir, `${name}-`, await chunkTotal(workdir)),
  });
  const all: Step[] = [
    chunkPlanStep(workdir),
    reading("count"),
    {
      name: "vocabulary",
      timing: "vocabulary",
      run: async ({ quiet }) => {
        await vocabularyStep(workdir, await config(), stderrReporter(quiet), s.exec.memory);
      },
      progress: async () => markerDone(workdir, "vocabulary"),
    },
    reading("sign"),
    {
      name: "merge",
      run: async ({ slice, quiet, context }) => {
        const corpus = against ? await supplement(context) : undefined;
        await timed(workdir, "merge", slice, () => mergeStep(workdir, corpus && (() => corpus.storeStreams())));
        const manifest = await writePrepareManifest(workdir, await config());
        const { emptyDocuments, documents } = manifest.counts;
        const reporter = stderrReporter(quiet);
        const skipped = skippedDocumentsWarning(manifest.warnings.oversizeSkipped, "they have no term and are in no pair");
        if (skipped !== undefined) reporter.info(skipped);
        const empty = emptyDocumentsWarning(emptyDocuments, documents, "term", "--min-df, --max-df, --column, --keep-numbers");
        if (empty !== undefined) reporter.info(empty);
      },
      progress: async () => markerDone(workdir, "merge"),
    },
    {
      name: "pleb",
      arraySize: plan.groups,
      pools: [PLEB_WORKERS],
      timing: plebPhaseName(plan),
      run: async ({ slice, workers, quiet, context }) => {
        const signatures = await store(context);
        // Only --target-recall needs the sampled recall during PLEB: it stops once the recall is reached.
        const recallOf = plan.options.targetRecall === undefined || plan.options.recallSample === undefined ? undefined : (first: FirstGroup) => recall(context, () => first, quiet);
        // What becomes an index (or is appended to one) keeps its PLEB iterations' sorted keys.
        const saveKeys = (against ? s.update : s.saveIndex) ? sortedKeysDir(workdir, plan.options.seed, plan.options.shiftCount) : undefined;
        const exec = { ...s.exec, workers };
        await plebStep(workdir, signatures, plan, slice, { exec, pool: context.pool(PLEB_WORKERS), reporter: stderrReporter(quiet), recallOf, verifier: await verifier(context), scope: await scope(context), saveKeys, partition: await partition(context) });
      },
      progress: () => markersDone(workdir, `${plebPhaseName(plan)}-group-`, plan.groups),
    },
    {
      name: "output",
      pools: [PLEB_WORKERS],
      run: async ({ quiet, context }) => {
        const sampled = plan.options.recallSample === undefined ? undefined : await recall(context, () => firstGroupPairs(plan), quiet);
        // A calibrated run writes its report after calibration.tsv, so that the report shows it.
        const output = { keep: s.keep, pairsLimit: s.pairsLimit, reference: s.reference, recall: sampled, report: s.report && s.calibrate === undefined, maxDocBytes: s.exec.maxDocBytes };
        const corpus = against ? await supplement(context) : undefined;
        await outputStep(workdir, s.outdir, await readPrepareManifest(workdir), await store(context), plan, output, { verifier: await verifier(context), supplement: corpus, scope: await scope(context) });
      },
      progress: doneInto(workdir, `output-${plan.fingerprint}`, s.outdir, "manifest.json"),
    },
  ];
  const calibrate = s.calibrate;
  if (calibrate !== undefined) {
    all.push({
      name: "calibrate",
      run: async ({ workers }) => {
        const report = s.report ? { maxDocBytes: s.exec.maxDocBytes, warn } : undefined;
        process.stderr.write(`vertdup: ${await calibrateStep(workdir, s.outdir, calibrate, workers, report)}\n`);
        await writeMarker(workdir, `calibrate-${plan.fingerprint}`, { outdir: s.outdir });
      },
      progress: doneInto(workdir, `calibrate-${plan.fingerprint}`, s.outdir, "calibration.tsv"),
    });
  }
  if (!against && s.saveIndex) {
    all.push({
      name: "index",
      run: async () => {
        await saveRunIndex(workdir, await readPrepareManifest(workdir));
        await writeMarker(workdir, "index", { documents: (await readPrepareManifest(workdir)).counts.documents });
      },
      progress: async () => markerDone(workdir, "index"),
    });
  }
  if (against && s.update) {
    all.push({
      name: "append",
      run: async ({ context }) => {
        const corpus = await supplement(context);
        const digests = await context.shared("digests", () => checkedDigests(corpus.indices, s.inputs, true, warn));
        await corpus.indices[0].append(workdir, await readPrepareManifest(workdir), corpus.weights(batchTerms(workdir)).newTerms, digests);
        await writeMarker(workdir, "append", { index: corpus.indices[0].dir });
      },
      progress: async () => markerDone(workdir, "append"),
    });
  }
  return {
    workdir,
    steps: steps === undefined ? all : all.filter((step) => steps.includes(step.name)),
    start: async (context) => {
      if (steps !== undefined && !steps.includes("count")) return startPleb(workdir, s, plan);
      let firstOrdinal: number | undefined;
      if (against) {
        const corpus = await supplement(context);
        // Checked before any work: an input an index holds already is refused (or, without --update, warned of).
        await context.shared("digests", () => checkedDigests(corpus.indices, s.inputs, s.update, warn));
        firstOrdinal = corpus.firstOrdinal;
      }
      await startPrepare(s.inputs, workdir, s.prepare, s.exec, s.resume, firstOrdinal);
    },
    ...(against ? { unit: { name: "supplement", marker: unitMarker(s), hold: (body) => withLocks(s.against, body) } } : {}),
  };
}

/** The steps of `vertdup prepare` and of `vertdup pleb` (on a prepared work directory). */
export const PREPARE_STEPS = ["count", "vocabulary", "sign", "merge"];
export const PLEB_STEPS = ["pleb", "output", "calibrate"];

/** lsh-cosine's preparatory steps alone (`vertdup prepare`): the signature store of `inputs` in `workdir`. */
export async function prepareSignatures(inputs: string[], workdir: string, prepare: PrepareOptions, exec: ExecutionOptions, resume = false): Promise<PrepareManifest> {
  const { workers, quiet, tmpDir: _tmpDir, ...steps } = exec;
  // PLEB's settings are `pleb`'s, given later: these are placeholders no preparatory step reads.
  const settings: LshCosineSettings = { method: "lsh-cosine", inputs, outdir: "", prepare, pleb: DEFAULT_PLEB, keep: "longest", pairsLimit: 0, report: false, resume, against: [], againstScan: "new", update: false, saveIndex: false, tasks: 1, exec: steps };
  await runLocally(lshCosinePipeline(workdir, settings, PREPARE_STEPS), workers, quiet === true);
  return readPrepareManifest(workdir);
}

/** `pleb` learns the signature length only from the work directory (`run` checks it with the other options). */
export function checkPlebShifts(workdir: string, bits: number, shiftCount: number): void {
  const maxShifts = SHIFTS_PER_BIT * bits;
  if (shiftCount > maxShifts) throw new VertdupError(`--shift-count must be an integer from 0 to ${maxShifts} (${SHIFTS_PER_BIT} × the ${bits} bits of ${workdir}), got ${shiftCount}`);
}

/**
 * PLEB on a prepared work directory (`vertdup pleb`): its options checked against the
 * signatures there, and without --resume its groups start over.
 */
async function startPleb(workdir: string, s: LshCosineSettings, plan: PlebPlan): Promise<void> {
  checkPlebShifts(workdir, (await readPrepareManifest(workdir)).options.bits, s.pleb.shiftCount);
  checkReference(plan, s);
  await ensureWritableDir(s.outdir);
  if (!s.resume) await resetPlan(workdir, plan);
}

/**
 * The marker of a pipeline that Slurm runs as one job (`--against`): it names what decides
 * its outputs, so that a submission with other options or another -o runs it again; with
 * --update not for another -o, so that the batch is appended once.
 */
function unitMarker(s: LshCosineSettings): string {
  // Named field by field: what a submission stores besides (its lock's token) must not change it.
  const decides = { inputs: s.inputs, prepare: s.prepare, pleb: s.pleb, keep: s.keep, pairsLimit: s.pairsLimit, report: s.report, against: s.against, againstScan: s.againstScan, update: s.update, calibrate: s.calibrate, exec: s.exec };
  return `supplement-${hashOf(s.update ? decides : { ...decides, outdir: s.outdir })}`;
}

function hashOf(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16);
}

/** lsh-cosine as the registry runs it (methods/method.ts). */
export const LSH_COSINE: MethodRunner<LshCosineSettings> = {
  settings: (r) => ({
    method: "lsh-cosine",
    inputs: r.inputs,
    outdir: r.outdir,
    prepare: r.prepare,
    pleb: r.pleb,
    keep: r.keep,
    pairsLimit: r.pairs.limit,
    report: r.report,
    resume: r.resume,
    against: r.against,
    againstScan: r.againstScan,
    update: r.update,
    saveIndex: r.saveIndex,
    // PLEB's estimate draws its own sample (`pleb.recallSample`).
    ...(r.calibrate === undefined ? {} : { calibrate: withoutSample(r.calibrate) }),
    tasks: r.tasks,
    exec: r.exec,
  }),
  pipeline: (workdir, s) => lshCosinePipeline(workdir, s),
  check: async (s, submittedTo) => {
    checkAgainst({ against: s.against, recall: s.calibrate !== undefined || s.pleb.targetRecall !== undefined }, s.prepare);
    if (submittedTo !== undefined) for (const dir of s.against) await LshIndex.open(dir, s.prepare, 0);
  },
  finished: async (outdir) => {
    const manifest = await readManifest<RunManifest>(outdir);
    return { manifest, summary: runSummary(outdir, manifest) };
  },
};

function withoutSample<C extends { sample: number }>({ sample: _sample, ...rest }: C): Omit<C, "sample"> {
  return rest;
}
