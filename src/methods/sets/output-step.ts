import { emptyDocumentsWarning, runWarnings } from "../../corpus/run-warnings.js";
import { addWarnings, emptyWarnings } from "../../corpus/vertical.js";
import { DEFAULT_PAIRS } from "../../core/options.js";
import type { Reporter } from "../../executor/progress.js";
import { PhaseClock, phaseTimings } from "../../executor/timing.js";
import { partitionGraph, partitionNumbers } from "../../clusters/partitions.js";
import { writeGraphOutputs } from "../../output/graph-outputs.js";
import { writeReport } from "../../report/write-report.js";
import { packageVersion } from "../../util/package-info.js";
import { prepareKernels } from "../../workdir/layout.js";
import { writeManifest, type MethodManifest } from "../manifest.js";
import type { RunDocuments } from "./run-documents.js";
import type { Found, MethodRun, SetMethodSpec } from "./set-method.js";

/** What the output step writes besides the graph's files. */
export interface MethodOutput {
  outdir: string;
  /** The inputs as the run names them (manifest.json `inputs`). */
  inputs: readonly string[];
  /** report.html, after manifest.json (a calibrated run writes it after calibration.tsv instead). */
  report: boolean;
  maxDocBytes?: number;
}

/**
 * The outputs of a set method's run: groups.tsv, pairs.tsv and clusters.tsv of the search's
 * graph (with --against only the clusters with a new document), manifest.json, and as asked
 * report.html. The phases before it are timed by their markers in `workdir`.
 */
export async function outputStep(workdir: string, method: SetMethodSpec, run: MethodRun, docs: RunDocuments, found: Found, o: MethodOutput, reporter: Reporter): Promise<MethodManifest> {
  // Read before any output is written: a damaged marker then leaves no output behind.
  const kernels = await prepareKernels(workdir);
  const timings = await phaseTimings(workdir, ["features", "search"]);
  const clock = new PhaseClock();
  clock.start("output");
  // The search kept to partitions (SearchPlace.part); the cut is the rule every method's outputs pass through.
  const attr = run.features.partitionAttr;
  const graph = attr === undefined ? found.graph : partitionGraph(found.graph, partitionNumbers(docs.shards.map((x) => x.parts), attr));
  const written = await writeGraphOutputs(o.outdir, graph, docs.ids, docs.tokens, { keep: run.keep, pairs: run.pairs ?? DEFAULT_PAIRS, sources: docs.sources });
  clock.stop("output");
  const reader = emptyWarnings();
  for (const s of docs.fresh) addWarnings(reader, s.warnings);
  const { skipped } = docs;
  const empty = method.emptyDocuments(docs.fresh);
  const warning = emptyDocumentsWarning(empty - skipped.documents, docs.newDocuments, method.features.of, method.features.decidedBy);
  if (warning !== undefined) reporter.info(warning);
  const manifest: MethodManifest = {
    version: packageVersion(),
    created: new Date().toISOString(),
    method: run.method,
    similarity: method.similarity,
    inputs: [...o.inputs],
    ...(docs.sources === undefined ? {} : { against: docs.sources.indices.map((x) => ({ index: x.dir, documents: x.documents })) }),
    prepare: run.features,
    search: run.search,
    counts: {
      shards: docs.shards.length,
      documents: docs.ids.length,
      tokens: docs.tokens.reduce((n, t) => n + t, 0),
      emptyDocuments: empty - skipped.documents,
      candidates: found.candidates,
      ...(found.verified === undefined ? {} : { verifiedCandidates: found.verified }),
      ...(found.verifyBlocks === undefined ? {} : { verifyBlocks: found.verifyBlocks }),
      groups: written.groups,
      documentsInGroups: written.documentsInGroups,
      edges: written.edges,
      pairs: written.pairLines,
    },
    clusters: written.clusters,
    warnings: { ...runWarnings(reader, empty, skipped), ...(written.repeatedIds === undefined ? {} : { repeatedIds: written.repeatedIds }) },
    ...(kernels === undefined ? {} : { kernels }),
    phases: { ...timings, ...clock.timings() },
  };
  await writeManifest(o.outdir, manifest);
  if (o.report) await writeReport(o.outdir, { seed: run.features.seed, maxDocBytes: o.maxDocBytes, warn: (m) => reporter.info(`warning: ${m}`) });
  return manifest;
}
