import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { RunConfig } from "../workdir/run-config.js";
import { writeAtomic } from "../util/atomic.js";
import type { StoredChunk } from "./chunker.js";
import type { ChainedChunk } from "./chunk-chain.js";
import { skippedRangeStub, type CutRange } from "./corpus-chunks.js";
import { VertdupError } from "../core/errors.js";
import { readJsonFile, WORKDIR_ADVICE } from "../util/json-file.js";

/** A chunk of a plain file as the count step cut and measured it. */
export interface PlannedRange {
  offset: number;
  length: number;
  /** The line of its first byte in the file. */
  firstLine: number;
  /** `<doc` lines in it (1 for a skipped document). */
  docCount: number;
  /** A document skipped for its size (--oversize skip): its stub is read at the range's start. */
  skipped?: true;
}

/** A plain input's chunks, with the size and modification time it had when they were cut. */
export interface InputPlan {
  path: string;
  size: number;
  mtimeMs: number;
  ranges: PlannedRange[];
}

/**
 * The chunks of the corpus, cut and measured once (by the plan job of a Slurm run) so that
 * the reading tasks take their byte ranges from it instead of reading the whole corpus:
 * per input, its ranges, or null for an input read as a stream (compressed, which every
 * task decompresses through). Valid for the chunking options it was made with.
 */
export interface ChunkPlan {
  chunkBytes: number;
  maxDocBytes?: number;
  oversize?: "skip";
  inputs: (InputPlan | null)[];
}

export const chunkPlanFile = (workdir: string) => join(workdir, "chunk-plan.json");

export async function writeChunkPlan(workdir: string, plan: ChunkPlan): Promise<void> {
  await writeAtomic(chunkPlanFile(workdir), `${JSON.stringify(plan)}\n`);
}

/**
 * The work directory's chunk plan, or null when there is none or it was made with other
 * chunking options or inputs (another configuration: it is not this run's). An input whose
 * size or modification time changed since the plan was made stops the task.
 */
export async function readChunkPlan(workdir: string, config: RunConfig<object>): Promise<ChunkPlan | null> {
  const path = chunkPlanFile(workdir);
  if (!existsSync(path)) return null;
  const plan = await readJsonFile<ChunkPlan>(path, WORKDIR_ADVICE);
  const inputs = config.inputs.map((i) => i.path);
  const same = plan.chunkBytes === config.chunkBytes && plan.maxDocBytes === config.maxDocBytes && plan.oversize === config.oversize && plan.inputs.length === inputs.length;
  if (!same || plan.inputs.some((p, k) => p !== null && p.path !== inputs[k])) return null;
  for (const input of plan.inputs) {
    if (input === null) continue;
    const s = statSync(input.path);
    if (s.size !== input.size || s.mtimeMs !== input.mtimeMs) throw new VertdupError(`${input.path}: the input changed since its chunks were planned (${path}): the run cannot continue on it`);
  }
  return plan;
}

/**
 * A planned range of the plain file `path` as a chunk's place and bytes (without its index
 * and first ordinal, which the ranges before it decide): the byte range its task reads, or
 * for a document skipped for its size its stub.
 */
export function plannedChunk(path: string, r: PlannedRange, maxDocBytes: number): Omit<StoredChunk, "index" | "firstDoc"> {
  const at = { file: path, firstLine: r.firstLine };
  if (r.skipped) return { ...at, docCount: 1, bytes: skippedRangeStub(path, r, maxDocBytes), skipped: true };
  return { ...at, docCount: r.docCount, bytes: { path, offset: r.offset, length: r.length } };
}

/**
 * A range of the plain file `path` as fileRanges cut it, not measured: its task counts its
 * documents and lines (chunk-chain.ts). Its first line is known for the file's first range
 * and for a skipped document and the range after it; a skipped document is one document.
 */
export function cutChunk(path: string, r: CutRange, maxDocBytes: number): Omit<ChainedChunk, "index" | "prev" | "self"> {
  const firstLine = r.offset === 0 ? 1 : r.firstLine;
  const at = { file: path, ...(firstLine !== undefined ? { firstLine } : {}) };
  if (r.skipped) return { ...at, docCount: 1, bytes: skippedRangeStub(path, r, maxDocBytes), skipped: true };
  return { ...at, bytes: { path, offset: r.offset, length: r.length } };
}
