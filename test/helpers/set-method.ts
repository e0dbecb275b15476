import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runLocally } from "../../src/executor/pipeline.js";
import type { MethodManifest } from "../../src/methods/manifest.js";
import { setMethodPipeline } from "../../src/methods/sets/pipeline.js";
import type { MethodRun } from "../../src/methods/sets/set-method.js";

/** A set method's run through its pipeline, as `vertdup run --method` runs it (quiet): its manifest. */
export async function runSetMethod(inputs: string[], workdir: string, outdir: string, run: MethodRun, exec: { workers: number; chunkBytes?: number }): Promise<MethodManifest> {
  const { workers, ...reading } = exec;
  await runLocally(setMethodPipeline(workdir, { method: run.method, inputs, outdir, run, exec: reading, tasks: 1 }), workers, true);
  return JSON.parse(readFileSync(join(outdir, "manifest.json"), "utf8")) as MethodManifest;
}
