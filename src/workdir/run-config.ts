import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_CHUNK_BYTES, type PrepareOptions } from "../core/options.js";
import { writeAtomic } from "../util/atomic.js";
import { VertdupError } from "../core/errors.js";
import { parseJsonFile, WORKDIR_ADVICE } from "../util/json-file.js";

/** An input as the work directory remembers it: enough to notice it was replaced. */
export interface InputStamp {
  path: string;
  size: number | null;
  mtimeMs: number | null;
}

/**
 * What the preparatory phase's files depend on: the inputs, the options and the chunk
 * size (shard boundaries). Stored as `config.json` in the work directory, so that every
 * task — local, resumed, or a Slurm array task on another machine — works from the same
 * configuration, and a resume into a directory made otherwise is refused.
 */
export interface RunConfig<P extends object = PrepareOptions> {
  inputs: InputStamp[];
  /** What decides the files of the reading steps: lsh-cosine's preparation options, or a method's name and feature options. */
  prepare: P;
  chunkBytes: number;
  /** --max-doc-bytes (absent in work directories made before it existed). */
  maxDocBytes?: number;
  /** --oversize skip (absent: error). */
  oversize?: "skip";
  /** Ordinal of the first document (--against: the documents of the indices come first; absent: 0). */
  firstOrdinal?: number;
  /** The int8 vectors' format (random-vectors.ts INT8_FORMAT); absent with float32 and in vertdup 0.3.0's int8 work directories. */
  projectionFormat?: number;
}

export const CONFIG_FILE = "config.json";

export async function stampInputs(paths: readonly string[]): Promise<InputStamp[]> {
  return Promise.all(
    paths.map(async (path) => {
      if (path === "-") return { path, size: null, mtimeMs: null };
      const s = await stat(path);
      return { path, size: s.size, mtimeMs: Math.trunc(s.mtimeMs) };
    }),
  );
}

/** JSON with an infinite value (a df limit) written as a string (JSON has no Infinity); read back by parseOptionsJson. */
export function optionsJson(value: unknown): string {
  return JSON.stringify(value, (_, v) => (v === Number.POSITIVE_INFINITY ? "Infinity" : v), 2) + "\n";
}

const infinity = (_: string, v: unknown) => (v === "Infinity" ? Number.POSITIVE_INFINITY : v);

export function parseOptionsJson(text: string): unknown {
  return JSON.parse(text, infinity);
}

function serialize(config: RunConfig<object>): string {
  return optionsJson(config);
}

function deserialize<P extends object>(path: string, text: string): RunConfig<P> {
  const config = parseJsonFile<RunConfig<P>>(path, text, WORKDIR_ADVICE, infinity);
  // Work directories made before --projection existed were signed with float32 vectors.
  if ("bits" in config.prepare && !("method" in config.prepare)) (config.prepare as Partial<PrepareOptions>).projection ??= "float32";
  // Terms were not normalised before --normalize existed (vertdup ≤ 0.6.0).
  if ("lowercase" in config.prepare || "ngram" in config.prepare) (config.prepare as Partial<PrepareOptions>).normalize ??= "none";
  return config;
}

export function fingerprint(config: RunConfig<object>): string {
  // A size limit that only stops the reading changes no file: a resume may raise it. One
  // that skips documents decides which documents have content.
  const limit = config.oversize === "skip" ? config.maxDocBytes : undefined;
  // In key order: an option filled in for an older directory (deserialize) comes last there.
  const prepare = Object.fromEntries(Object.entries(config.prepare).sort(([a], [b]) => (a < b ? -1 : 1)));
  return createHash("sha256").update(serialize({ ...config, prepare, maxDocBytes: limit })).digest("hex").slice(0, 16);
}

/** How the int8 vectors of a projection format were drawn, for messages. */
export function vectorsName(format: number | undefined): string {
  return format === undefined ? "vertdup 0.3.0's quantised polar Gaussians" : `drawn from the quantised Gaussian, format ${format}`;
}

const when = (ms: number | null) => (ms === null ? "unknown" : new Date(ms).toISOString());

/** Which inputs differ between `now` and `there` (the recorded ones), and how: for a message. */
export function inputDifferences(now: readonly InputStamp[], there: readonly InputStamp[]): string[] {
  const out: string[] = [];
  const count = `${there.length} there, ${now.length} now`;
  if (now.length > there.length) out.push(`${now.slice(there.length).map((i) => i.path).join(", ")} added (${count})`);
  if (now.length < there.length) out.push(`${there.slice(now.length).map((i) => i.path).join(", ")} left out (${count})`);
  for (let k = 0; k < Math.min(now.length, there.length); k++) {
    const [a, b] = [now[k], there[k]];
    if (a.path !== b.path) out.push(`input ${k + 1} is ${a.path} now, ${b.path} there`);
    else if (a.size !== b.size) out.push(`${a.path} changed: ${String(b.size)} bytes there, ${String(a.size)} now`);
    else if (a.mtimeMs !== b.mtimeMs) out.push(`${a.path} changed: modified ${when(b.mtimeMs)} there, ${when(a.mtimeMs)} now`);
  }
  return out;
}

/** The differences between two configurations, named for a message. */
function differences<P extends object>(a: RunConfig<P>, b: RunConfig<P>): string[] {
  const out: string[] = [];
  if (JSON.stringify(a.inputs) !== JSON.stringify(b.inputs)) out.push(`inputs (${inputDifferences(a.inputs, b.inputs).join("; ")})`);
  // Both sides' keys: an option given only now or only there (--partition-attr) is absent from the other.
  for (const key of new Set([...Object.keys(a.prepare), ...Object.keys(b.prepare)]) as Set<keyof P & string>) {
    if (a.prepare[key] === b.prepare[key]) continue;
    const older = key === "normalize" ? "; vertdup 0.6.0 and earlier read as none" : "";
    out.push(`--${key} (${String(b.prepare[key])} there, ${String(a.prepare[key])} now${older})`);
  }
  const projection = (a.prepare as Partial<PrepareOptions>).projection;
  if (a.projectionFormat !== b.projectionFormat && projection === (b.prepare as Partial<PrepareOptions>).projection) {
    out.push(`${projection} vectors (${vectorsName(b.projectionFormat)} there, ${vectorsName(a.projectionFormat)} now: prepare the corpus anew)`);
  }
  if (a.chunkBytes !== b.chunkBytes) out.push(`--chunk-size (${b.chunkBytes} there, ${a.chunkBytes} now)`);
  if (a.oversize !== b.oversize) out.push(`--oversize (${b.oversize ?? "error"} there, ${a.oversize ?? "error"} now)`);
  else if (a.oversize === "skip" && a.maxDocBytes !== b.maxDocBytes) out.push(`--max-doc-bytes (${String(b.maxDocBytes)} there, ${String(a.maxDocBytes)} now)`);
  return out;
}

export async function readRunConfig(workdir: string): Promise<RunConfig> {
  const path = join(workdir, CONFIG_FILE);
  if (!existsSync(path)) throw new VertdupError(`${workdir}: no ${CONFIG_FILE} (not a vertdup work directory)`);
  return deserialize(path, await readFile(path, "utf8"));
}

/**
 * The chunk size of a run: the one given (`--chunk-size`); else, resuming, the one the work
 * directory was made with, so that a directory made with an older default or another size
 * resumes without naming it; else DEFAULT_CHUNK_BYTES. Outputs do not depend on it.
 */
export function chunkBytesFor(given: number | undefined, workdir: string | undefined, resume: boolean): number {
  if (given !== undefined) return given;
  const path = workdir === undefined ? undefined : join(workdir, CONFIG_FILE);
  if (resume && path !== undefined && existsSync(path)) return deserialize(path, readFileSync(path, "utf8")).chunkBytes;
  return DEFAULT_CHUNK_BYTES;
}

/**
 * Records the configuration of a new run, or checks that a resumed run has the same one.
 * Returns true when earlier work in the directory may be reused.
 */
export async function adoptRunConfig<P extends object>(workdir: string, config: RunConfig<P>, resume: boolean): Promise<boolean> {
  const path = join(workdir, CONFIG_FILE);
  if (resume && existsSync(path)) {
    if (config.inputs.some((i) => i.path === "-")) {
      throw new VertdupError("--resume cannot check standard input against the earlier run: give the corpus as files");
    }
    const previous = deserialize<P>(path, await readFile(path, "utf8"));
    if (fingerprint(previous) !== fingerprint(config)) {
      throw new VertdupError(`${workdir}: refusing to resume: the work directory was made with other ${differences(config, previous).join(", ")}: give the options it was made with, or run without --resume to start anew`);
    }
    return true;
  }
  await writeAtomic(path, serialize(config));
  return false;
}
