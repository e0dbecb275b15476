import { readChunkCounts } from "../features/count-step.js";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { SigRecord } from "../sketch/signature-record.js";
import { writeSignatureStore } from "./signature-store.js";
import type { SignStats } from "../sketch/sign-shard.js";
import { runWarnings } from "../corpus/run-warnings.js";
import { writeAtomic } from "../util/atomic.js";
import { packageVersion } from "../util/package-info.js";
import { PREPARE_MANIFEST, type PrepareManifest } from "../features/prepare-manifest.js";
import type { RunConfig } from "../workdir/run-config.js";
import { prepareKernels, shardFile } from "../workdir/layout.js";
import { runWholeTask } from "../executor/tasks.js";
import { requireMarker, requireShardMarkers } from "../workdir/require.js";
import { phaseTimings } from "../executor/timing.js";
import type { VocabularyStats } from "../features/vocabulary-step.js";

interface MergeStats {
  distinct: number;
  documents: number;
}

export const PREPARE_PHASES = ["count", "vocabulary", "sign", "merge"] as const;

/**
 * Merges the shards' sorted signature runs k-way into the signature store (identical
 * signatures collapsed with their documents), with `extra` sorted streams (--against: the
 * indices' stores, storeRecords).
 */
export async function mergeStep(workdir: string, extra: () => AsyncIterable<SigRecord>[] = () => []): Promise<MergeStats> {
  const stats = await runWholeTask(workdir, "merge", async () => {
    const { shards } = await readChunkCounts(workdir);
    await requireShardMarkers<SignStats>(workdir, "sign", shards);
    const runPaths = Array.from({ length: shards }, (_, i) => shardFile(workdir, i, "run"));
    const scratch = (level: number, group: number) => join(workdir, "runs", `merge-${level}-${group}.run`);
    return writeSignatureStore(workdir, runPaths, scratch, extra());
  });
  // The runs are no longer needed once the store is marked (a kill before this leaves them to the resumed run).
  await rm(join(workdir, "runs"), { recursive: true, force: true });
  return stats;
}

/** prepare.json: the preparatory phase's options, counts, warnings, timings and kernels. */
export async function writePrepareManifest(workdir: string, config: RunConfig): Promise<PrepareManifest> {
  const vocabulary = await requireMarker<VocabularyStats>(workdir, "vocabulary", "the vocabulary step");
  const merged = await requireMarker<MergeStats>(workdir, "merge", "the merge step");
  const signed = await requireShardMarkers<SignStats>(workdir, "sign", vocabulary.shards);
  const { warnings, ...corpus } = vocabulary;
  const emptyDocuments = signed.reduce((n, s) => n + s.empty, 0);
  const { skipped } = await readChunkCounts(workdir);
  const manifest: PrepareManifest = {
    version: packageVersion(),
    inputs: config.inputs.map((i) => i.path),
    options: config.prepare,
    ...(config.projectionFormat === undefined ? {} : { projectionFormat: config.projectionFormat }),
    counts: {
      ...corpus,
      emptyDocuments: emptyDocuments - (skipped?.documents ?? 0),
      signedDocuments: merged.documents,
      distinctSignatures: merged.distinct,
    },
    warnings: runWarnings(warnings, emptyDocuments, skipped),
    phases: await phaseTimings(workdir, PREPARE_PHASES),
  };
  const kernels = await prepareKernels(workdir);
  if (kernels !== undefined) manifest.kernels = kernels;
  await writeAtomic(join(workdir, PREPARE_MANIFEST), JSON.stringify(manifest, null, 2) + "\n");
  return manifest;
}
