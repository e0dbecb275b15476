import { loadDocParts, loadDocTokens } from "../../clusters/doc-table.js";
import { partitionGraph, partitionNumbers } from "../../clusters/partitions.js";
import { readPairsFile } from "../../eval/pairs-file.js";
import { ReferenceRecall } from "../../eval/reference-recall.js";
import type { KeepPolicy } from "../../core/method-options.js";
import { loadDocIds } from "../../output/doc-ids.js";
import { writeGraphOutputs } from "../../output/graph-outputs.js";
import { writeManifest, writePlebLog, type RunManifest, type GroupEstimate } from "../manifest.js";
import { beamScanKernelStatus } from "../../pleb/beam-scan-wasm.js";
import { FoundPairs } from "../../pleb/found-pairs.js";
import { forestLog, iterationLog } from "../../pleb/pleb-log.js";
import type { PairVerifier } from "../../pleb/pair-verifier.js";
import { plebGraph } from "./graph.js";
import { comparisonsPerIteration, identicalPairs } from "../../pleb/run-pleb.js";
import type { SignatureStore } from "../../runs/signature-store.js";
import { VertdupError } from "../../core/errors.js";
import type { Proportion } from "../../util/binomial-interval.js";
import type { SampleRecall } from "../../eval/sample-recall.js";
import { ensureWritableDir } from "../../util/output-dir.js";
import { packageVersion } from "../../util/package-info.js";
import type { PrepareManifest } from "../../features/prepare-manifest.js";
import { collectGroups, planVerifier, plebPhaseName, type PlebPlan, type ScanScope } from "../../pleb/pleb-step.js";
import { PhaseClock, phaseTiming } from "../../executor/timing.js";
import { writeReport } from "../../report/write-report.js";
import { writeMarker } from "../../workdir/layout.js";
import type { SupplementedCorpus } from "./against.js";
import { searchKey, writeRunLinks } from "./links.js";
import { UnionFind } from "../../util/union-find.js";
import type { PairColumns } from "../../pleb/spanning-forest.js";

export interface OutputOptions {
  keep: KeepPolicy;
  /** `--pairs all`: refuse to write more lines of pairs.tsv than this (0: no limit). */
  pairsLimit: number;
  /** A pairs file to follow PLEB's recall against (pleb --reference; needs `--pairs all`). */
  reference?: string;
  /** The sampled recall to log after each iteration group (`--estimate-recall`, `--target-recall`). */
  recall?: SampleRecall;
  /** Write report.html (default); `--no-report` skips it. */
  report?: boolean;
  /** The run's --max-doc-bytes, for the report's second read of the corpus. */
  maxDocBytes?: number;
}

/** What PLEB searched with, which the outputs need too: its verifier, and with `--against` the combined corpus and the scan's scope. */
export interface SearchContext {
  /** The plan's verifier (planVerifier), loaded here when not given. */
  verifier?: PairVerifier;
  /** `--against`: the indices' documents before the batch's. */
  supplement?: SupplementedCorpus;
  /** `--against-scan new`: the indices' links and the fresh signatures. */
  scope?: ScanScope;
}

/** Refuses a reference without `--pairs all`: its recall counts every document pair found. */
export function checkReference(plan: PlebPlan, opts: OutputOptions): void {
  if (opts.reference !== undefined && plan.options.pairs !== "all") {
    throw new VertdupError("--reference needs --pairs all: the recall counts every document pair PLEB finds, which --pairs edges does not keep");
  }
}

/**
 * The outputs of a PLEB run from its iteration groups: the DuplicateGraph of the store and
 * the kept pairs written as every method's outputs (writeGraphOutputs), then pleb-log.tsv
 * and manifest.json, each written atomically. `verifier`: the plan's (planVerifier), loaded
 * here when not given. With `supplement` (--against), the documents are the combined ones
 * and the outputs get their sources (only clusters with a new document are written);
 * `scope` (`--against-scan new`): the index's links come before the groups' pairs. The kept
 * pairs are also written as the work directory's links (writeRunLinks).
 */
export async function outputStep(
  workdir: string,
  outdir: string,
  prepared: PrepareManifest,
  store: SignatureStore,
  plan: PlebPlan,
  opts: OutputOptions,
  { verifier, supplement, scope }: SearchContext = {},
): Promise<RunManifest> {
  checkReference(plan, opts);
  const { recall } = opts;
  recall?.reset();
  const estimates: { iteration: number; estimate: Proportion }[] = recall === undefined ? [] : [{ iteration: 0, estimate: recall.estimate() }];
  const collected = collectGroups(
    workdir,
    store,
    plan,
    recall && ((record, iteration) => (recall.addColumns(record), estimates.push({ iteration, estimate: recall.estimate() }))),
    scope?.links,
  );
  if ("missing" in collected) {
    throw new VertdupError(`${workdir}: ${collected.missing.length} of ${plan.groups} PLEB iteration groups are not done (first: group ${collected.missing[0]}); run them first`);
  }
  await ensureWritableDir(outdir);
  const { found, seconds, checked, rejected } = collected;
  const clock = new PhaseClock();
  clock.start("output");
  const { shards } = prepared.counts;
  const sources = supplement?.sources(prepared.counts.documents);
  const documents = sources?.documents ?? prepared.counts.documents;
  const ids = supplement === undefined ? loadDocIds(workdir, shards) : supplement.ids(workdir, shards);
  const kept = found.toColumns();
  // Read before any output is written: a damaged marker then leaves no output behind.
  const pleb = await phaseTiming(workdir, plebPhaseName(plan));
  // What makes the work directory an index (or --update) keep the links of its documents.
  await writeRunLinks(workdir, store, kept, searchKey(plan.options, seconds.length));
  // The verifier reads the vectors of the written edges' documents it has not read yet (a
  // resumed run: all of them); with --against-scan new only clusters with a new document are written.
  const verify = verifier ?? (await planVerifier(workdir, store, plan));
  await verify?.require(...(scope === undefined ? [kept.i, kept.j] : writtenEdgeEnds(kept, scope)));
  const searched = plebGraph(store, documents, kept, verify);
  const attr = prepared.options.partitionAttr;
  const graph = attr === undefined ? searched : partitionGraph(searched, partitionNumbers(supplement === undefined ? loadDocParts(workdir, shards) : supplement.parts(workdir, shards), attr));
  const tokens = supplement === undefined ? loadDocTokens(workdir, shards) : supplement.tokens(workdir, shards);
  const graphOptions = { keep: opts.keep, pairs: { mode: plan.options.pairs, limit: opts.pairsLimit }, ...(sources === undefined ? {} : { sources }) };
  const written = await writeGraphOutputs(outdir, graph, ids, tokens, graphOptions);
  const reference = opts.reference === undefined ? undefined : new ReferenceRecall(await readPairsFile(opts.reference), ids, store);
  const log = found instanceof FoundPairs ? iterationLog(store, found, seconds, reference) : forestLog(store, kept, seconds);
  for (const { iteration, estimate } of estimates) log[iteration].estimate = estimate;
  await writePlebLog(outdir, log, found instanceof FoundPairs ? "pairs" : "links");
  clock.stop("output");
  const manifest: RunManifest = {
    version: packageVersion(),
    created: new Date().toISOString(),
    method: "lsh-cosine",
    similarity: "relative Hamming similarity of random-hyperplane signatures (estimates 1 - angle/pi)",
    inputs: prepared.inputs,
    ...(sources === undefined ? {} : { against: sources.indices.map((x) => ({ index: x.dir, documents: x.documents })), againstScan: scope === undefined ? "full" : "new" }),
    prepare: prepared.options,
    pleb: plan.options,
    counts: {
      ...prepared.counts,
      identicalSignaturePairs: identicalPairs(store),
      signaturePairs: found.size,
      groups: written.groups,
      documentsInGroups: written.documentsInGroups,
      pairs: written.pairLines,
      comparisons: store.count < 2 ? 0 : (scope === undefined ? comparisonsPerIteration(store.count, plan.options.beam) : 2 * plan.options.beam * freshCount(scope)) * seconds.length,
      ...(plan.options.cosineThreshold === undefined ? {} : { verifiedCandidates: checked, rejectedCandidates: rejected }),
    },
    ...(recall === undefined ? {} : { recallEstimate: recallEstimate(recall, seconds.length, estimates) }),
    clusters: written.clusters,
    warnings: { ...prepared.warnings, ...(written.repeatedIds === undefined ? {} : { repeatedIds: written.repeatedIds }) },
    phases: { ...prepared.phases, ...(pleb === undefined ? {} : { pleb }), ...clock.timings() },
    kernels: { ...prepared.kernels, "beam-scan": beamScanKernelStatus((m) => process.stderr.write(`vertdup: ${m}\n`)) },
  };
  await writeManifest(outdir, manifest);
  if (opts.report !== false) await writeReport(outdir, { seed: plan.options.seed, maxDocBytes: opts.maxDocBytes, warn: (m) => process.stderr.write(`vertdup: warning: ${m}\n`) });
  await writeMarker(workdir, `output-${plan.fingerprint}`, { outdir });
  return manifest;
}

/**
 * The signatures of the pairs in clusters with a new document (those whose edges are
 * written, and so need a cosine): pairs of a component holding a fresh signature.
 */
function writtenEdgeEnds(kept: PairColumns, scope: ScanScope): [Uint32Array, Uint32Array] {
  const sets = new UnionFind(scope.fresh.length);
  for (let k = 0; k < kept.i.length; k++) sets.union(kept.i[k], kept.j[k]);
  const withNew = new Uint8Array(scope.fresh.length);
  for (let i = 0; i < scope.fresh.length; i++) if (scope.fresh[i] === 1) withNew[sets.find(i)] = 1;
  const written = (_: number, k: number) => withNew[sets.find(kept.i[k])] === 1;
  return [kept.i.filter(written), kept.j.filter(written)];
}

function freshCount(scope: ScanScope): number {
  return scope.fresh.reduce((n, f) => n + f, 0);
}

function recallEstimate(recall: SampleRecall, iterations: number, estimates: { iteration: number; estimate: Proportion }[]): NonNullable<RunManifest["recallEstimate"]> {
  const { design } = recall;
  const strata = design === undefined ? {} : { strata: { documents: [...design.population], sampled: [...design.drawn] } };
  return { referencePairs: recall.total, iterations, sampling: design === undefined ? "uniform" : "stratified", ...strata, byGroup: estimates.map(groupEstimate) };
}

function groupEstimate({ iteration, estimate }: { iteration: number; estimate: Proportion }): GroupEstimate {
  return { iteration, recall: estimate.estimate, low: estimate.low, high: estimate.high };
}
