/**
 * vertdup as a library: `runPipeline` is `vertdup run` without the command line — the same
 * options (checked the same way), outputs and manifest; progress and warnings go to stderr.
 */
import { commandLine } from "./cli/command-line.js";
import { runCommand, runFromOptions } from "./cli/commands/run.js";
import type { RunResult } from "./methods/registry.js";
import { VertdupError } from "./core/errors.js";

export type { RunResult } from "./methods/registry.js";
export type { MethodManifest, OutputManifest, RunManifest } from "./methods/manifest.js";
export { InputError, VertdupError } from "./core/errors.js";

/**
 * `vertdup run`'s options by their long names (`vertdup run --help`), e.g.
 * `{ outdir: "out", method: "minhash", threshold: 0.8, workers: 4 }`; `false` is `--no-<name>`.
 */
export type RunOptions = { outdir: string } & Record<string, string | number | boolean | undefined>;

function optionArgs(options: RunOptions): string[] {
  return Object.entries(options).flatMap(([name, value]) => {
    if (value === undefined) return [];
    if (typeof value === "boolean") return [value ? `--${name}` : `--no-${name}`];
    return [`--${name}=${value}`];
  });
}

/**
 * Runs the whole pipeline on `inputs` (.vert, .vert.gz, .vert.zst) into `options.outdir`:
 * the run's manifest and summary line. A bad option or input rejects with a VertdupError.
 */
export async function runPipeline(inputs: readonly string[], options: RunOptions): Promise<RunResult> {
  let result: RunResult | undefined;
  await commandLine(["run", ...inputs, ...optionArgs(options)])
    .command({ ...runCommand, handler: async (a) => void (result = await runFromOptions(a)) })
    .fail((message, err) => {
      throw err ?? new VertdupError(message);
    })
    .parseAsync();
  if (result === undefined) throw new VertdupError("runPipeline: the run did not start");
  return result;
}
