import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describeSystemError, errorCode, syncDirectory, writeAtomic } from "../util/atomic.js";
import { VertdupError } from "../core/errors.js";
import type { KernelStatus } from "../util/wasm-kernel.js";
import { makeDirectory } from "../util/output-dir.js";
import { removeIndex } from "./index-store.js";
import { readJsonFile, WORKDIR_ADVICE } from "../util/json-file.js";

/**
 * Layout of a work directory. Every phase communicates through these files only, each
 * written atomically, and each task leaves a marker when all of its files are in place:
 *
 *   .vertdup-workdir                   stamp: vertdup made this directory and may clear it
 *   vertdup.lock                       the run using the directory (workdir-lock.ts)
 *   config.json                        inputs, options and chunk size (checked on resume)
 *   chunks.json                        number of chunks and documents of the corpus
 *   prepare.json                       counts and timings of the preparatory phase
 *   shards/NNNNNN.{counts,docs,df}.zst pass 1 per chunk: term counts, ids, partial df (in pieces of the hash range)
 *   vocab.zst                          kept terms and their df, by decreasing df (df = 1 frames, then the header)
 *   runs/NNNNNN.run.zst                pass 2 per chunk: (signature, document) sorted
 *   store/{signatures,offsets,docs}.u32  distinct signatures, sorted, with their documents
 *   pleb/<fingerprint>/group-NNNN.zst  pairs found by a group of PLEB iterations
 *   markers/<task>.done                completion markers (JSON of the task's stats)
 *   paragraph-steps/                   `vertdup paragraphs`: saved step results (paragraph-dedup/step-files.ts)
 *   similarity/, hamming-full/         the exact references' blocks (eval/exact/reference-blocks.ts)
 *   clean/                             `clean -w`: the cleaned inputs, copied to the output (clean/clean-corpus.ts)
 */
export type ShardFileKind = "counts" | "docs" | "df" | "run";

/** The files a count task writes for its shard. */
export const COUNT_FILES = ["counts", "docs", "df"] as const satisfies readonly ShardFileKind[];

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

/** The pairs a PLEB run kept, by document (methods/lsh-cosine/links.ts): what an lsh-cosine index links. */
export function linksFile(workdir: string): string {
  return join(workdir, "links.zst");
}

export const storeFiles = (workdir: string) => ({
  signatures: join(workdir, "store", "signatures.u32"),
  offsets: join(workdir, "store", "offsets.u32"),
  docs: join(workdir, "store", "docs.u32"),
});

export function chunksFile(workdir: string): string {
  return join(workdir, "chunks.json");
}

/** A slice of a phase's tasks: those whose index ≡ `index` (mod `count`). */
export interface Slice {
  index: number;
  count: number;
}

export const WHOLE: Slice = { index: 0, count: 1 };

export function inSlice(task: number, slice: Slice): boolean {
  return task % slice.count === slice.index;
}

export const STAMP_FILE = ".vertdup-workdir";

/**
 * Makes `workdir` a vertdup work directory (creating it, or adopting an empty one, with a
 * stamp file), or checks that it is one. A directory with other files and no stamp is the
 * user's: refused, since a new run clears a work directory's folders.
 */
export async function claimWorkdir(workdir: string): Promise<void> {
  const found = await stat(workdir).catch((err: unknown) => {
    if (errorCode(err) === "ENOENT") return null;
    throw new VertdupError(`${workdir}: cannot use as work directory (${describeSystemError(err)})`);
  });
  if (found !== null && !found.isDirectory()) throw new VertdupError(`${workdir}: not a directory (the work directory must be one)`);
  if (found === null) {
    await makeDirectory(workdir).catch((err: unknown) => {
      throw new VertdupError(`${workdir}: cannot create the work directory (${describeSystemError(err)})`);
    });
  } else if (existsSync(join(workdir, STAMP_FILE))) {
    return;
  } else {
    // A run killed while writing the stamp leaves only the stamp's temporary file: still ours.
    const entries = await readdir(workdir);
    const halfStamped = entries.filter((name) => name.startsWith(`${STAMP_FILE}.tmp-`));
    if (entries.length > halfStamped.length) {
      throw new VertdupError(`${workdir}: not empty and not a work directory made by vertdup (no ${STAMP_FILE}): refusing to clear it; give a new or empty directory`);
    }
    for (const name of halfStamped) await rm(join(workdir, name), { force: true });
  }
  await writeAtomic(join(workdir, STAMP_FILE), "a vertdup work directory: vertdup may clear its files\n");
}

export async function createWorkdir(workdir: string): Promise<void> {
  for (const sub of ["shards", "runs", "store", "markers"]) {
    await mkdir(join(workdir, sub), { recursive: true });
  }
}

/**
 * Starts over: removes every file an earlier run left in the work directory's own folders,
 * the index first (its manifest is its commit point: no index outlives the files it lists).
 */
export async function resetWorkdir(workdir: string): Promise<void> {
  await removeIndex(workdir);
  for (const sub of ["shards", "runs", "store", "markers", "pleb", "methods", "paragraph-steps", "clean", "similarity", "hamming-full"]) await rm(join(workdir, sub), { recursive: true, force: true });
  for (const file of ["chunks.json", "chunk-plan.json", "vocab.zst", "prepare.json", "links.zst"]) await rm(join(workdir, file), { force: true });
  await createWorkdir(workdir);
}

/** `durable` false: see writeAtomic's `durableName` (markersDurable makes them durable). */
export async function writeMarker(workdir: string, task: string, stats: unknown, durable = true): Promise<void> {
  await writeAtomic(markerFile(workdir, task), JSON.stringify(stats), durable);
}

/** Makes the markers written with `durable` false so far durable: one directory fsync. */
export async function markersDurable(workdir: string): Promise<void> {
  await syncDirectory(join(workdir, "markers"));
}

/**
 * The tasks whose completion markers are in place (a write cut short leaves only a
 * temporary file beside them, which is not a marker).
 */
export async function completedTasks(workdir: string): Promise<string[]> {
  const dir = join(workdir, "markers");
  if (!existsSync(dir)) return [];
  return (await readdir(dir)).filter((name) => name.endsWith(".done")).map((name) => name.slice(0, -".done".length));
}

export async function readMarker<T>(workdir: string, task: string): Promise<T | undefined> {
  const path = markerFile(workdir, task);
  if (!existsSync(path)) return undefined;
  return readJsonFile<T>(path, WORKDIR_ADVICE);
}

/**
 * Markers of what ran each kernel of a slice's pass: `kernels-<pass>-<index>-of-<count>`
 * (lsh-cosine's count and sign passes, a set method's features step).
 */
const KERNELS_MARKER = "kernels-";

/** Records what ran the kernels of a slice's `pass`. */
export async function writeKernelsMarker(workdir: string, pass: "count" | "sign" | "features", slice: Slice, kernels: Record<string, KernelStatus>): Promise<void> {
  await writeMarker(workdir, `${KERNELS_MARKER}${pass}-${slice.index}-of-${slice.count}`, kernels);
}

/**
 * What ran each kernel of the reading passes, for prepare.json or a manifest (`kernels`): "webassembly"
 * unless a slice fell back (then that slice's reason); undefined when no slice recorded it.
 */
export async function prepareKernels(workdir: string): Promise<Record<string, KernelStatus> | undefined> {
  let out: Record<string, KernelStatus> | undefined;
  for (const task of (await completedTasks(workdir)).filter((n) => n.startsWith(KERNELS_MARKER)).sort()) {
    for (const [kernel, status] of Object.entries((await readMarker<Record<string, KernelStatus>>(workdir, task)) ?? {})) {
      out ??= {};
      if (out[kernel] === undefined || out[kernel] === "webassembly") out[kernel] = status;
    }
  }
  return out;
}
