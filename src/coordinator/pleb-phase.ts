import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ExecutionOptions, PlebOptions } from "../options.js";
import { loadSignatureStore } from "../runs/signature-store.js";
import { identicalPairs, runPleb } from "../pleb/run-pleb.js";
import { loadDocIds } from "../output/doc-ids.js";
import { documentPairKeys, signatureOfDocument, writePairsTsv } from "../output/pairs.js";
import { writeManifest, writePlebLog, type RunManifest } from "../output/manifest.js";
import { VertdupError } from "../util/errors.js";
import { packageVersion } from "../util/package-info.js";
import { ensureWritableDir } from "../util/output-dir.js";
import { PhaseClock } from "./phase-clock.js";
import { WorkerPool } from "./pool.js";
import { PREPARE_MANIFEST, type PrepareManifest } from "./prepare.js";
import type { Reporter } from "./progress.js";
import { readPairsFile } from "../eval/pairs-file.js";
import { ReferenceRecall } from "../eval/reference-recall.js";
import { writeClusters } from "../clusters/write-clusters.js";
import { loadDocTokens } from "../clusters/doc-table.js";
import type { KeepPolicy } from "../methods/method-options.js";

export async function readPrepareManifest(workdir: string): Promise<PrepareManifest> {
  const path = join(workdir, PREPARE_MANIFEST);
  if (!existsSync(path)) {
    throw new VertdupError(`${workdir}: not a prepared work directory (no ${PREPARE_MANIFEST}; run vertdup prepare first)`);
  }
  return JSON.parse(await readFile(path, "utf8")) as PrepareManifest;
}

/**
 * The PLEB half: signature store → similar pairs, log and manifest in `outdir`. With a
 * reference pairs file, the log also follows the recall against it.
 */
export async function plebPhase(
  workdir: string,
  outdir: string,
  opts: PlebOptions,
  exec: ExecutionOptions,
  reporter: Reporter,
  keep: KeepPolicy = "longest",
  referencePath?: string,
): Promise<RunManifest> {
  const prepared = await readPrepareManifest(workdir);
  await ensureWritableDir(outdir);
  const clock = new PhaseClock();
  const bits = prepared.options.bits;
  const store = loadSignatureStore(workdir, bits);
  const reference =
    referencePath === undefined
      ? undefined
      : new ReferenceRecall(await readPairsFile(referencePath), loadDocIds(workdir, prepared.counts.shards), store);
  const pool = new WorkerPool("pleb", exec.workers);
  let result;
  try {
    clock.start("pleb");
    result = await runPleb(store, opts, exec, pool, reporter, reference);
    clock.stop("pleb");
  } finally {
    await pool.close();
  }
  clock.start("output");
  const documents = prepared.counts.documents;
  const keys = documentPairKeys(store, result.found, documents);
  const sigOf = signatureOfDocument(store, documents);
  const ids = loadDocIds(workdir, prepared.counts.shards);
  const found = result.found;
  const similarity = (a: number, b: number) => {
    const i = Math.min(sigOf[a], sigOf[b]);
    const j = Math.max(sigOf[a], sigOf[b]);
    return i === j ? 1 : 1 - (found.distance(i, j) ?? bits) / bits;
  };
  await writePairsTsv(join(outdir, "pairs.tsv"), keys, documents, ids, similarity);
  const clusters = await writeClusters(outdir, keys, documents, ids, loadDocTokens(workdir, prepared.counts.shards), similarity, keep);
  await writePlebLog(outdir, result.log);
  clock.stop("output");
  const manifest: RunManifest = {
    version: packageVersion(),
    created: new Date().toISOString(),
    method: "lsh-cosine",
    similarity: "relative Hamming similarity of random-hyperplane signatures (estimates 1 - angle/pi)",
    inputs: prepared.inputs,
    prepare: prepared.options,
    pleb: opts,
    counts: {
      ...prepared.counts,
      identicalSignaturePairs: identicalPairs(store),
      signaturePairs: found.size,
      pairs: keys.length,
      comparisons: result.comparisons,
    },
    clusters,
    warnings: prepared.warnings,
    phases: { ...prepared.phases, ...clock.timings() },
  };
  await writeManifest(outdir, manifest);
  return manifest;
}
