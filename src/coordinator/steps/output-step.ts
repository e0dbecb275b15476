import { join } from "node:path";
import { writeClusters } from "../../clusters/write-clusters.js";
import { loadDocTokens } from "../../clusters/doc-table.js";
import { readPairsFile } from "../../eval/pairs-file.js";
import { ReferenceRecall } from "../../eval/reference-recall.js";
import type { KeepPolicy } from "../../methods/method-options.js";
import { loadDocIds } from "../../output/doc-ids.js";
import { writeManifest, writePlebLog, type RunManifest } from "../../output/manifest.js";
import { documentPairKeys, signatureOfDocument, writePairsTsv } from "../../output/pairs.js";
import { iterationLog } from "../../pleb/pleb-log.js";
import { comparisonsPerIteration, identicalPairs } from "../../pleb/run-pleb.js";
import type { SignatureStore } from "../../runs/signature-store.js";
import { VertdupError } from "../../util/errors.js";
import { ensureWritableDir } from "../../util/output-dir.js";
import { packageVersion } from "../../util/package-info.js";
import type { PrepareManifest } from "../prepare-manifest.js";
import { collectGroups, plebPhaseName, type PlebPlan } from "./pleb-step.js";
import { phaseTiming } from "./timing.js";
import { PhaseClock } from "../phase-clock.js";
import { writeMarker } from "../workdir.js";

export interface OutputOptions {
  keep: KeepPolicy;
  /** A pairs file to follow PLEB's recall against (pleb --reference). */
  reference?: string;
}

/**
 * The outputs of a PLEB run from its iteration groups: pairs.tsv (document pairs in corpus
 * order), clusters.tsv, pleb-log.tsv and manifest.json, each written atomically.
 */
export async function outputStep(
  workdir: string,
  outdir: string,
  prepared: PrepareManifest,
  store: SignatureStore,
  plan: PlebPlan,
  opts: OutputOptions,
): Promise<RunManifest> {
  const collected = collectGroups(workdir, store, plan);
  if ("missing" in collected) {
    throw new VertdupError(`${workdir}: ${collected.missing.length} of ${plan.groups} PLEB iteration groups are not done (first: group ${collected.missing[0]}); run them first`);
  }
  await ensureWritableDir(outdir);
  const { found, seconds } = collected;
  const clock = new PhaseClock();
  clock.start("output");
  const bits = store.words * 32;
  const documents = prepared.counts.documents;
  const ids = loadDocIds(workdir, prepared.counts.shards);
  const reference = opts.reference === undefined ? undefined : new ReferenceRecall(await readPairsFile(opts.reference), ids, store);
  const keys = documentPairKeys(store, found, documents);
  const sigOf = signatureOfDocument(store, documents);
  const similarity = (a: number, b: number) => {
    const i = Math.min(sigOf[a], sigOf[b]);
    const j = Math.max(sigOf[a], sigOf[b]);
    return i === j ? 1 : 1 - (found.distance(i, j) ?? bits) / bits;
  };
  await writePairsTsv(join(outdir, "pairs.tsv"), keys, documents, ids, similarity);
  const clusters = await writeClusters(outdir, keys, documents, ids, loadDocTokens(workdir, prepared.counts.shards), similarity, opts.keep);
  await writePlebLog(outdir, iterationLog(store, found, seconds, reference));
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
      pairs: keys.length,
      comparisons: store.count > 1 ? comparisonsPerIteration(store.count, plan.options.beam) * plan.options.iterations : 0,
    },
    clusters,
    warnings: prepared.warnings,
    phases: { ...prepared.phases, ...(pleb === undefined ? {} : { pleb }), ...clock.timings() },
  };
  await writeManifest(outdir, manifest);
  await writeMarker(workdir, `output-${plan.fingerprint}`, { outdir });
  return manifest;
}
