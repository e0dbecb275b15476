import { loadDocTokens } from "../../clusters/doc-table.js";
import { readPairsFile } from "../../eval/pairs-file.js";
import { ReferenceRecall } from "../../eval/reference-recall.js";
import type { KeepPolicy } from "../../methods/method-options.js";
import { loadDocIds } from "../../output/doc-ids.js";
import { writeGraphOutputs } from "../../output/graph-outputs.js";
import { writeManifest, writePlebLog, type RunManifest } from "../../output/manifest.js";
import { FoundPairs } from "../../pleb/found-pairs.js";
import { forestLog, iterationLog } from "../../pleb/pleb-log.js";
import type { PairVerifier } from "../../pleb/pair-verifier.js";
import { plebGraph } from "../../pleb/pleb-graph.js";
import { comparisonsPerIteration, identicalPairs } from "../../pleb/run-pleb.js";
import type { SignatureStore } from "../../runs/signature-store.js";
import { VertdupError } from "../../util/errors.js";
import { ensureWritableDir } from "../../util/output-dir.js";
import { packageVersion } from "../../util/package-info.js";
import type { PrepareManifest } from "../prepare-manifest.js";
import { collectGroups, planVerifier, plebPhaseName, type PlebPlan } from "./pleb-step.js";
import { phaseTiming } from "./timing.js";
import { PhaseClock } from "../phase-clock.js";
import { writeMarker } from "../workdir.js";

export interface OutputOptions {
  keep: KeepPolicy;
  /** `--pairs all`: refuse to write more lines of pairs.tsv than this (0: no limit). */
  pairsLimit: number;
  /** A pairs file to follow PLEB's recall against (pleb --reference; needs `--pairs all`). */
  reference?: string;
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
 * here when not given.
 */
export async function outputStep(
  workdir: string,
  outdir: string,
  prepared: PrepareManifest,
  store: SignatureStore,
  plan: PlebPlan,
  opts: OutputOptions,
  verifier?: PairVerifier,
): Promise<RunManifest> {
  checkReference(plan, opts);
  const collected = collectGroups(workdir, store, plan);
  if ("missing" in collected) {
    throw new VertdupError(`${workdir}: ${collected.missing.length} of ${plan.groups} PLEB iteration groups are not done (first: group ${collected.missing[0]}); run them first`);
  }
  await ensureWritableDir(outdir);
  const { found, seconds, checked, rejected } = collected;
  const clock = new PhaseClock();
  clock.start("output");
  const documents = prepared.counts.documents;
  const ids = loadDocIds(workdir, prepared.counts.shards);
  const kept = found.toColumns();
  const graph = plebGraph(store, documents, kept, verifier ?? (await planVerifier(workdir, store, plan)));
  const written = await writeGraphOutputs(outdir, graph, ids, loadDocTokens(workdir, prepared.counts.shards), {
    keep: opts.keep,
    pairs: { mode: plan.options.pairs, limit: opts.pairsLimit },
  });
  if (found instanceof FoundPairs) {
    const reference = opts.reference === undefined ? undefined : new ReferenceRecall(await readPairsFile(opts.reference), ids, store);
    await writePlebLog(outdir, iterationLog(store, found, seconds, reference), "pairs");
  } else {
    await writePlebLog(outdir, forestLog(store, kept, seconds), "links");
  }
  clock.stop("output");
  const pleb = await phaseTiming(workdir, plebPhaseName(plan));
  const manifest: RunManifest = {
    version: packageVersion(),
    created: new Date().toISOString(),
    method: "lsh-cosine",
    similarity: "relative Hamming similarity of random-hyperplane signatures (estimates 1 - angle/pi)",
    inputs: prepared.inputs,
    prepare: prepared.options,
    pleb: plan.options,
    counts: {
      ...prepared.counts,
      identicalSignaturePairs: identicalPairs(store),
      signaturePairs: found.size,
      groups: written.groups,
      documentsInGroups: written.documentsInGroups,
      pairs: written.pairLines,
      comparisons: store.count > 1 ? comparisonsPerIteration(store.count, plan.options.beam) * plan.options.iterations : 0,
      ...(plan.options.cosineThreshold === undefined ? {} : { verifiedCandidates: checked, rejectedCandidates: rejected }),
    },
    clusters: written.clusters,
    warnings: prepared.warnings,
    phases: { ...prepared.phases, ...(pleb === undefined ? {} : { pleb }), ...clock.timings() },
  };
  await writeManifest(outdir, manifest);
  await writeMarker(workdir, `output-${plan.fingerprint}`, { outdir });
  return manifest;
}
