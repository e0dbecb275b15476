import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { ChunkCounts } from "../features/count-step.js";
import { chunksFile, completedTasks, markerFile } from "../workdir/layout.js";
import type { PhaseCompletion } from "./phases.js";

/** Markers whose name starts with `prefix`, of `total` tasks. */
export async function markersDone(workdir: string, prefix: string, total: number | undefined): Promise<PhaseCompletion> {
  return { done: (await completedTasks(workdir)).filter((m) => m.startsWith(prefix)).length, total };
}

/** A single step: done once its marker is in place. */
export function markerDone(workdir: string, marker: string): PhaseCompletion {
  return { done: existsSync(markerFile(workdir, marker)) ? 1 : 0, total: 1 };
}

/** Chunks of the corpus, once a reading task has read it through (chunks.json). */
export async function chunkTotal(workdir: string): Promise<number | undefined> {
  return existsSync(chunksFile(workdir)) ? (JSON.parse(await readFile(chunksFile(workdir), "utf8")) as ChunkCounts).shards : undefined;
}
