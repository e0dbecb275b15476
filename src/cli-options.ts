import { availableParallelism } from "node:os";
import type { Argv } from "yargs";
import { DEFAULT_CHUNK_BYTES, DEFAULT_PAIRS, DEFAULT_PLEB, DEFAULT_PREPARE, type ExecutionOptions, type PairsOutput, type PlebOptions, type PrepareOptions } from "./options.js";
import { VertdupError } from "./util/errors.js";
import { parseSize } from "./util/size.js";
import { DEFAULT_MAX_DOC_BYTES } from "./corpus/chunker.js";
import { DEFAULT_ITERATIONS_PER_GROUP } from "./coordinator/steps/pleb-step.js";

/** Options that shape the signatures (prepare and run). */
export function withPrepareOptions<T>(y: Argv<T>) {
  return y
    .option("bits", { type: "number", default: DEFAULT_PREPARE.bits, describe: "signature length in bits (multiple of 64)" })
    .option("shingle-size", { type: "number", default: DEFAULT_PREPARE.shingleSize, describe: "consecutive kept words per term" })
    .option("weighting", { choices: ["tfidf", "tf"] as const, default: DEFAULT_PREPARE.weighting, describe: "term weights of the document vectors" })
    .option("keep-numbers", { type: "boolean", default: DEFAULT_PREPARE.keepNumbers, describe: "keep tokens made only of digits" })
    .option("lowercase", { type: "boolean", default: DEFAULT_PREPARE.lowercase, describe: "lowercase terms (--no-lowercase keeps case)" })
    .option("min-df", { type: "number", default: DEFAULT_PREPARE.minDf, describe: "drop terms in fewer documents (count, or fraction when < 1)" })
    .option("max-df", { type: "number", describe: "drop terms in more documents (count, or fraction when < 1) [no limit]" })
    .option("column", { type: "number", default: DEFAULT_PREPARE.column, describe: "tab-separated column used as the term (0 = word, 2 = lemma…)" })
    .option("id-attr", { type: "string", default: DEFAULT_PREPARE.idAttr, describe: "attribute of <doc> that names a document" });
}

/** Options of the PLEB search (pleb and run). */
export function withPlebOptions<T>(y: Argv<T>) {
  return y
    .option("threshold", { type: "number", default: DEFAULT_PLEB.threshold, describe: "minimum relative Hamming similarity (fraction)" })
    .option("beam", { type: "number", default: DEFAULT_PLEB.beam, describe: "neighbours compared after each signature in the sorted order" })
    .option("shift-count", { type: "number", default: DEFAULT_PLEB.shiftCount, describe: "random bit transpositions after each iteration" })
    .option("iterations", { type: "number", default: DEFAULT_PLEB.iterations, describe: "PLEB iterations" })
    .option("iterations-per-group", { type: "number", default: DEFAULT_ITERATIONS_PER_GROUP, describe: "PLEB iterations per resumable task (tuning only: pairs do not depend on it)" });
}

/** What pairs.tsv holds (run and pleb). */
export function withPairsOptions<T>(y: Argv<T>) {
  return y
    .option("pairs", { choices: ["edges", "all"] as const, default: DEFAULT_PAIRS.mode, describe: "pairs.tsv: pairs found between groups (edges) or every document pair (all: quadratic)" })
    .option("pairs-limit", { type: "number", default: DEFAULT_PAIRS.limit, describe: "--pairs all: refuse to write more lines than this (0: no limit)" });
}

export function pairsOutputFrom(a: { pairs: "edges" | "all"; "pairs-limit": number }): PairsOutput {
  return { mode: a.pairs, limit: positiveInt("pairs-limit", a["pairs-limit"], 0) };
}

/** --resume: continue an interrupted run in the same work directory. */
export function withResumeOption<T>(y: Argv<T>) {
  return y.option("resume", {
    type: "boolean",
    default: false,
    describe: "continue an interrupted run in the work directory (-w): completed tasks are skipped",
  });
}

export function withExecutionOptions<T>(y: Argv<T>) {
  return y
    .option("seed", { type: "number", default: DEFAULT_PREPARE.seed, describe: "seed of the random vectors and transpositions" })
    .option("workers", { type: "number", default: availableParallelism(), describe: "worker threads" })
    .option("tmp-dir", { type: "string", describe: "where a temporary work directory is made (without -w)" })
    .option("quiet", { type: "boolean", default: false, describe: "plain log lines instead of progress bars" })
    .option("chunk-size", { type: "number", default: DEFAULT_CHUNK_BYTES, describe: "bytes of corpus per shard (tuning only: outputs do not depend on it)" });
}

/** Limits of the corpus reader: every command that reads a corpus. */
export function withReadingOptions<T>(y: Argv<T>) {
  return y.option("max-doc-bytes", {
    type: "string",
    default: `${DEFAULT_MAX_DOC_BYTES / 1024 ** 2}M`,
    describe: "largest document (or line outside documents) read, e.g. 64M: a larger one is an error naming file:line",
  });
}

export function maxDocBytesFrom(a: { "max-doc-bytes"?: string }): number | undefined {
  if (a["max-doc-bytes"] === undefined) return undefined;
  const bytes = parseSize(a["max-doc-bytes"], "max-doc-bytes");
  if (bytes < 1) throw new VertdupError(`--max-doc-bytes must be at least 1 byte, got ${a["max-doc-bytes"]}`);
  return bytes;
}

function positiveInt(name: string, v: number, min = 1): number {
  if (!Number.isInteger(v) || v < min) throw new VertdupError(`--${name} must be an integer >= ${min}, got ${v}`);
  return v;
}

interface ParsedPrepare {
  bits: number;
  "shingle-size": number;
  weighting: "tfidf" | "tf";
  "keep-numbers": boolean;
  lowercase: boolean;
  "min-df": number;
  "max-df"?: number;
  column: number;
  "id-attr": string;
  seed: number;
}

export function prepareOptionsFrom(a: ParsedPrepare): PrepareOptions {
  if (!Number.isInteger(a.bits) || a.bits < 64 || a.bits % 64 !== 0) throw new VertdupError(`--bits must be a positive multiple of 64, got ${a.bits}`);
  const maxDf = a["max-df"] ?? Number.POSITIVE_INFINITY;
  if (!(a["min-df"] >= 0) || !(maxDf > 0)) throw new VertdupError("--min-df and --max-df must be positive");
  return {
    bits: a.bits,
    shingleSize: positiveInt("shingle-size", a["shingle-size"]),
    weighting: a.weighting,
    keepNumbers: a["keep-numbers"],
    lowercase: a.lowercase,
    minDf: a["min-df"],
    maxDf,
    column: positiveInt("column", a.column, 0),
    idAttr: a["id-attr"],
    seed: positiveInt("seed", a.seed, 0),
  };
}

interface ParsedPleb {
  threshold: number;
  beam: number;
  "shift-count": number;
  iterations: number;
  seed: number;
  pairs?: PlebOptions["pairs"];
}

export function plebOptionsFrom(a: ParsedPleb): PlebOptions {
  if (!(a.threshold > 0 && a.threshold <= 1)) throw new VertdupError(`--threshold must be in (0, 1], got ${a.threshold}`);
  return {
    threshold: a.threshold,
    beam: positiveInt("beam", a.beam),
    shiftCount: positiveInt("shift-count", a["shift-count"], 0),
    iterations: positiveInt("iterations", a.iterations),
    seed: positiveInt("seed", a.seed, 0),
    pairs: a.pairs ?? DEFAULT_PLEB.pairs,
  };
}

export function executionOptionsFrom(a: { workers: number; "tmp-dir"?: string; quiet: boolean; "chunk-size": number; "iterations-per-group"?: number; "max-doc-bytes"?: string }): ExecutionOptions {
  return {
    workers: positiveInt("workers", a.workers),
    tmpDir: a["tmp-dir"],
    quiet: a.quiet,
    chunkBytes: positiveInt("chunk-size", a["chunk-size"]),
    iterationsPerGroup: positiveInt("iterations-per-group", a["iterations-per-group"] ?? DEFAULT_ITERATIONS_PER_GROUP),
    maxDocBytes: maxDocBytesFrom(a),
  };
}

/** yargs drops a bare `-` from positional lists: it travels under this name instead. */
const STDIN_ARG = "\u0000stdin";

export function protectStdinArg(arg: string): string {
  return arg === "-" ? STDIN_ARG : arg;
}

/** The input paths of a command, with standard input as `-` again. */
export function inputPaths(inputs: readonly (string | number)[]): string[] {
  return inputs.map((i) => (String(i) === STDIN_ARG ? "-" : String(i)));
}
