import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeAtomic } from "../util/atomic.js";
import { VertdupError } from "../core/errors.js";
import { completedTasks, markerFile, shardName } from "./layout.js";
import { readJsonFile, WORKDIR_ADVICE } from "../util/json-file.js";

/**
 * The folder of a step that runs in a work directory it shares with others (`clean`, the
 * exact references): its files in `<workdir>/<name>/`, its markers `<name>-*`, and the
 * configuration its files were made with in `<name>/config.json`.
 */
export interface StepDir {
  workdir: string;
  name: string;
}

export const stepFolder = (step: StepDir) => join(step.workdir, step.name);

/** The marker of the step `name`'s task `part`: its index, or a name ("output"). */
export const stepMarker = (name: string, part: number | string) => `${name}-${typeof part === "number" ? shardName(part) : part}`;

/**
 * Removes the step's files and markers: the next run starts over. Also once the step's output
 * is in place, as a completed paragraphs run removes its saved steps: markers first, so that
 * a kill meanwhile leaves at worst files without markers (redone on resume).
 */
export async function clearStep(step: StepDir): Promise<void> {
  for (const task of await completedTasks(step.workdir)) {
    if (task.startsWith(`${step.name}-`)) await rm(markerFile(step.workdir, task), { force: true });
  }
  await rm(stepFolder(step), { recursive: true, force: true });
}

/**
 * Starts the step: with `resume`, keeps what an earlier run of it left when that run had the
 * same `config` (and refuses, naming the differences, when it had another); otherwise, or
 * when nothing was left, clears the step and records `config`. Returns the configuration the
 * step runs with: the earlier one on resume, so that a plan recorded in it (block counts)
 * is kept whatever the worker count now.
 */
export async function startStep<C extends Record<string, unknown>>(step: StepDir, config: C, resume: boolean, plan: (keyof C)[] = []): Promise<C> {
  const path = join(stepFolder(step), "config.json");
  // A work directory of its own (clean -w) has no markers folder yet.
  await mkdir(join(step.workdir, "markers"), { recursive: true });
  if (resume && existsSync(path)) {
    const previous = await readJsonFile<C>(path, WORKDIR_ADVICE);
    const differ = Object.keys(config).filter((key) => !plan.includes(key) && JSON.stringify(config[key]) !== JSON.stringify(previous[key]));
    if (differ.length > 0) {
      const what = differ.map((key) => `${key} (${JSON.stringify(previous[key])} there, ${JSON.stringify(config[key])} now)`);
      throw new VertdupError(`${step.workdir}: refusing to resume ${step.name}: it was started with other ${what.join(", ")}`);
    }
    return previous;
  }
  await clearStep(step);
  await mkdir(stepFolder(step), { recursive: true });
  await writeAtomic(path, JSON.stringify(config, null, 2) + "\n");
  return config;
}
