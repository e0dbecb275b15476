import { existsSync } from "node:fs";
import { join } from "node:path";
import type { PrepareOptions } from "../core/options.js";
import type { RunWarnings } from "../corpus/run-warnings.js";
import { VertdupError } from "../core/errors.js";
import type { KernelStatus } from "../util/wasm-kernel.js";
import type { PhaseTiming } from "../executor/timing.js";
import { readJsonFile } from "../util/json-file.js";

/** What the corpus amounts to once read: known after the vocabulary step. */
export interface CorpusCounts {
  shards: number;
  documents: number;
  tokens: number;
  keptTokens: number;
  terms: number;
  keptTerms: number;
}

/** What `prepare` leaves in `<workdir>/prepare.json` for the later phases and the manifest. */
export interface PrepareManifest {
  version: string;
  inputs: string[];
  options: PrepareOptions;
  /** The int8 vectors' format (RunConfig.projectionFormat): absent with float32 and in vertdup 0.3.0's int8 work directories. */
  projectionFormat?: number;
  counts: CorpusCounts & {
    emptyDocuments: number;
    signedDocuments: number;
    distinctSignatures: number;
  };
  warnings: RunWarnings;
  phases: Record<string, PhaseTiming>;
  /** What ran the sign pass's accumulation: "webassembly" or "typescript (why)" (absent from older work directories). */
  kernels?: Record<string, KernelStatus>;
}

export const PREPARE_MANIFEST = "prepare.json";

export async function readPrepareManifest(workdir: string): Promise<PrepareManifest> {
  const path = join(workdir, PREPARE_MANIFEST);
  if (!existsSync(path)) {
    throw new VertdupError(`${workdir}: not a prepared work directory (no ${PREPARE_MANIFEST}; run vertdup prepare first)`);
  }
  const manifest = await readJsonFile<PrepareManifest>(path, "prepare the work directory again (vertdup prepare … -w, or run … -w)");
  // Prepared before --projection existed: float32 vectors.
  manifest.options.projection ??= "float32";
  // Prepared before --normalize existed (vertdup ≤ 0.6.0): terms as they were.
  manifest.options.normalize ??= "none";
  return manifest;
}
