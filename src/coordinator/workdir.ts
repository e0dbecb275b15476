import { mkdir, readFile, readdir, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { writeAtomic } from "../util/atomic.js";

/**
 * Layout of a work directory. Every phase communicates through these files only, each
 * written atomically, and each task leaves a marker when all of its files are in place:
 *
 *   prepare.json                      options and inputs of the preparatory phase
 *   shards/NNNNNN.{counts,docs,df}.zst pass 1 per chunk: term counts, ids, partial df
 *   vocab.zst                          kept terms and their df, by decreasing df
 *   runs/NNNNNN.run.zst                pass 2 per chunk: (signature, document) sorted
 *   store/{signatures,offsets,docs}.u32  distinct signatures, sorted, with their documents
 *   markers/<task>.done                completion markers (JSON of the task's stats)
 */
export type ShardFileKind = "counts" | "docs" | "df" | "run";

export function shardName(index: number): string {
  return String(index).padStart(6, "0");
}

export function shardFile(workdir: string, index: number, kind: ShardFileKind): string {
  const folder = kind === "run" ? "runs" : "shards";
  return join(workdir, folder, `${shardName(index)}.${kind}.zst`);
}

export function markerFile(workdir: string, task: string): string {
  return join(workdir, "markers", `${task}.done`);
}

export function vocabularyFile(workdir: string): string {
  return join(workdir, "vocab.zst");
}

export const storeFiles = (workdir: string) => ({
  signatures: join(workdir, "store", "signatures.u32"),
  offsets: join(workdir, "store", "offsets.u32"),
  docs: join(workdir, "store", "docs.u32"),
});

export async function createWorkdir(workdir: string): Promise<void> {
  for (const sub of ["shards", "runs", "store", "markers"]) {
    await mkdir(join(workdir, sub), { recursive: true });
  }
}

export async function writeMarker(workdir: string, task: string, stats: unknown): Promise<void> {
  await writeAtomic(markerFile(workdir, task), JSON.stringify(stats));
}

export async function readMarker<T>(workdir: string, task: string): Promise<T | undefined> {
  const path = markerFile(workdir, task);
  if (!existsSync(path)) return undefined;
  return JSON.parse(await readFile(path, "utf8")) as T;
}

/** Removes every marker whose name starts with `prefix` (a phase redone from scratch). */
export async function clearMarkers(workdir: string, prefix: string): Promise<void> {
  const dir = join(workdir, "markers");
  if (!existsSync(dir)) return;
  for (const name of await readdir(dir)) {
    if (name.startsWith(prefix)) await rm(join(dir, name), { force: true });
  }
}
