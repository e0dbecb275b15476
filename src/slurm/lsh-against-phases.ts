import { type Step, markerDone } from "../executor/step.js";
import { createHash } from "node:crypto";
import { lshCosineRun } from "../methods/lsh-cosine/run.js";
import { stderrReporter } from "../executor/progress.js";
import { runTasks } from "../executor/tasks.js";

import type { LshAgainstSettings, SlurmRunCommon } from "./slurm-run.js";

/** The job of lsh-cosine against saved indices: the one phase of its submission. */
export const SUPPLEMENT_PHASE = "supplement";

/**
 * lsh-cosine with `--against` on Slurm: one job on `--cpus-per-task` cores that runs what
 * `vertdup run --against [--update]` runs, as a unit (methods/lsh-cosine/run.ts): the
 * indices locked from before they are read until the batch is appended, the batch read and
 * signed with their frozen weights, PLEB, the outputs, the atomic append. Its outputs and the
 * updated index are the local run's, byte for byte, since it is the local run.
 */
export function lshAgainstPhases(workdir: string, settings: SlurmRunCommon & LshAgainstSettings): Step[] {
  const marker = supplementMarker(settings);
  return [
    {
      name: SUPPLEMENT_PHASE,
      run: async ({ workers, quiet }) => {
        const run = { ...settings.supplement, workdir, outdir: settings.outdir, resume: false, saveIndex: false };
        const exec = { ...settings.exec, workers, quiet };
        // A task of the executor: a re-submission after it finished does not run it again (nor append the batch twice).
        await runTasks(workdir, [{ marker, start: async () => ({ result: lshCosineRun(run, exec, stderrReporter(quiet)) }), load: async () => undefined, stats: (m) => ({ outdir: settings.outdir, groups: m?.counts.groups }) }]);
      },
      progress: async () => markerDone(workdir, marker),
    },
  ];
}

/**
 * The supplement job's marker names what decides its outputs: a submission with other options
 * or another -o runs it again; with --update not for another -o, so that the batch is appended once.
 */
export function supplementMarker(settings: SlurmRunCommon & LshAgainstSettings): string {
  const decides = settings.supplement.update ? { supplement: settings.supplement } : { supplement: settings.supplement, outdir: settings.outdir };
  return `${SUPPLEMENT_PHASE}-${createHash("sha256").update(JSON.stringify(decides)).digest("hex").slice(0, 16)}`;
}
