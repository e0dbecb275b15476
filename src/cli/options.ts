import { type CalibrationSampling, type Oversize, DEFAULT_CHUNK_BYTES, DEFAULT_COSINE_THRESHOLD, DEFAULT_ITERATIONS_PER_GROUP, DEFAULT_MAX_DOC_BYTES, DEFAULT_PAIRS, DEFAULT_PLEB, DEFAULT_PREPARE, SHIFTS_PER_BIT, NORMALIZATIONS, PROJECTIONS, type Normalization, type ExecutionOptions, type PairsOutput, type PlebOptions, type PrepareOptions } from "../core/options.js";
import { availableParallelism } from "node:os";
import type { Argv, InferredOptionType, Options } from "yargs";
import { METHOD_DEFAULTS, METHOD_NAMES, SIMHASH_WORDS, type KeepPolicy, type MethodName } from "../core/method-options.js";
import { BOUNDARIES, COUNT_RULES, DEFAULT_PARAGRAPH } from "../core/paragraph-options.js";
import { VertdupError } from "../core/errors.js";
import { parseSize } from "../util/size.js";

import { candidateThreshold } from "../pleb/candidate-threshold.js";
import { CALIBRATED_METHODS, methodsUsing, refuseUncalibrated } from "../methods/method.js";
import type { AgainstScan } from "../methods/lsh-cosine/against.js";

/**
 * The option schema of every command (README "Use" documents the limits): one entry per
 * option with its yargs spec and its only validation. A command lists the options it uses
 * (`withOptions`); it shows and accepts no other. Which `run --method`s use an option, each
 * method declares (methods/method.ts).
 */

/** Throws a VertdupError naming --`name` when `value` is out of range; `argv` for limits set by another option. */
type Check = (name: string, value: never, argv: Readonly<Record<string, unknown>>) => void;

interface OptionDef extends Options {
  check?: Check;
  /**
   * When another option's value leaves this one without effect: why (e.g. "does nothing with
   * --no-verify"), so that a given value is refused instead of silently ignored. A defaulted
   * value is never refused.
   */
  unusedBecause?: (argv: Readonly<Record<string, unknown>>) => string | undefined;
}

/** Longest signature: PLEB stores Hamming distances below 2^17. */
const MAX_BITS = 65_536;
/** The smallest --memory: below it the work is split into so many parts that it never ends. */
const MIN_MEMORY = 16 * 1024 ** 2;
const MAX_MEMORY = 1024 ** 4;

function integer(min: number, max: number | ((argv: Readonly<Record<string, unknown>>) => number), why = ""): Check {
  return (name, value: number, argv) => {
    const top = typeof max === "number" ? max : max(argv);
    if (!Number.isInteger(value) || value < min || value > top) throw new VertdupError(`--${name} must be an integer from ${min} to ${top}${why}, got ${value}`);
  };
}

/** A fraction in (0, 1], or in [0, 1] when 0 is allowed. */
export function fraction(zero: boolean): Check {
  return (name, value: number) => {
    if (!((zero ? value >= 0 : value > 0) && value <= 1)) throw new VertdupError(`--${name} must be in ${zero ? "[" : "("}0, 1], got ${value}`);
  };
}

/** A document frequency: a count, or a fraction of the documents when < 1. */
const dfLimit: Check = (name, value: number) => {
  if (!(value >= 0 && Number.isFinite(value)) || (value >= 1 && !Number.isSafeInteger(value))) {
    throw new VertdupError(`--${name} must be a document count or a fraction of the documents (< 1), got ${value}`);
  }
};

/** `4G` for 4 GiB: the largest unit that divides `bytes`. */
function sizeText(bytes: number): string {
  const power = [4, 3, 2, 1].find((p) => bytes % 1024 ** p === 0) ?? 0;
  return `${bytes / 1024 ** power}${" KMGT"[power].trim()}`;
}

/** A size such as 512M or 4G (util/size.ts), from `min` to `max` bytes. */
export function size(min: number, max: number): Check {
  return (name, value: string) => {
    const bytes = parseSize(value, name);
    if (bytes < min || bytes > max) throw new VertdupError(`--${name} must be from ${sizeText(min)} to ${sizeText(max)}, got ${value}`);
  };
}

const memorySize = size(MIN_MEMORY, MAX_MEMORY);

const NAME = /^[A-Za-z_][\w.:-]*$/;
const xmlName: Check = (name, value: string) => {
  if (!NAME.test(value)) throw new VertdupError(`--${name} must be an XML name such as p, doc or id, got ${JSON.stringify(value)}`);
};

/** A path option that cannot be standard input or output. */
export const noStdio: Check = (name, value: string | string[]) => {
  if ([value].flat().includes("-")) throw new VertdupError(`--${name} names a file or directory: - (standard input/output) is not possible here`);
};

const tmpDirCheck: Check = (name, value: string, argv) => {
  noStdio(name, value as never, argv);
  if (argv.workdir !== undefined) throw new VertdupError(`--${name} does nothing with -w: the work directory is the one given`);
};

/** `def` keeps the literal types of a spec, from which yargs infers the parsed types. */
const def = <const O extends OptionDef>(o: O): O => o;

/** `--estimate-recall` of a method without calibration: refused, saying why (not "does not apply"). */
const calibratedMethod: Check = (_name, value: boolean, argv) => {
  if (value && typeof argv.method === "string") refuseUncalibrated(argv.method as MethodName);
};

/** `--sample`, `--sampling` of a command with --estimate-recall (calibrate always samples): unused without it or --target-recall. */
function withoutRecall(argv: Readonly<Record<string, unknown>>): string | undefined {
  return argv["estimate-recall"] === false && argv["target-recall"] === undefined ? "does nothing without --estimate-recall or --target-recall (no document is sampled)" : undefined;
}

export const OPTIONS = {
  workdir: def({ alias: "w", type: "string", demandOption: true, describe: "work directory", check: noStdio }),
  outdir: def({ alias: "o", type: "string", demandOption: true, describe: "output directory", check: noStdio }),
  output: def({ alias: "o", type: "string", demandOption: true, describe: "output file (- for standard output)" }),
  "tmp-dir": def({ type: "string", describe: "where a temporary work directory is made (without -w)", check: tmpDirCheck }),
  resume: def({
    type: "boolean",
    default: false,
    describe: "continue an interrupted run in the work directory (-w): completed tasks are skipped",
  }),
  method: def({ choices: METHOD_NAMES, default: "lsh-cosine" as MethodName, describe: "how documents are compared (docs/methods.md: which to pick)" }),
  // Reading and terms.
  column: def({ type: "number", default: DEFAULT_PREPARE.column, describe: "tab-separated column used as the term (0 = word, 2 = lemma…)", check: integer(0, 255) }),
  "id-attr": def({ type: "string", default: DEFAULT_PREPARE.idAttr, describe: "attribute of <doc> that names a document", check: xmlName }),
  "partition-attr": def({
    type: "string",
    describe: "attribute of <doc> (e.g. lang) whose value partitions the corpus: documents are compared only with documents of the same value; a document without the attribute has the empty value, like lang=\"\"",
    check: xmlName,
  }),
  normalize: def({ choices: NORMALIZATIONS, default: DEFAULT_PREPARE.normalize, describe: "Unicode form of terms: nfc (composed, soft hyphens and zero-width characters removed), nfkc (also fullwidth letters and ligatures folded, accents and stress marks dropped), none (docs/methods.md)" }),
  lowercase: def({ type: "boolean", default: DEFAULT_PREPARE.lowercase, describe: "lowercase terms (--no-lowercase keeps case)" }),
  "keep-numbers": def({ type: "boolean", default: DEFAULT_PREPARE.keepNumbers, describe: "keep tokens made only of digits" }),
  "shingle-size": def({ type: "number", default: DEFAULT_PREPARE.shingleSize, describe: "consecutive kept words per term", check: integer(1, 64) }),
  // Signatures.
  bits: def({ type: "number", default: DEFAULT_PREPARE.bits, describe: `signature length in bits (multiple of 64, at most ${MAX_BITS})`, check: bitsCheck }),
  weighting: def({ choices: ["tfidf", "tf"] as const, default: DEFAULT_PREPARE.weighting, describe: "term weights of the document vectors" }),
  projection: def({ choices: PROJECTIONS, default: DEFAULT_PREPARE.projection, describe: "random-vector components: int8-quantized Gaussians, or float32 (the thesis's)" }),
  "min-df": def({ type: "number", default: DEFAULT_PREPARE.minDf, describe: "drop terms in fewer documents (count, or fraction when < 1)", check: dfLimit }),
  "max-df": def({ type: "number", describe: "drop terms in more documents (count, or fraction when < 1) [no limit]", check: positiveDf }),
  seed: def({ type: "number", default: DEFAULT_PREPARE.seed, describe: "seed of the random vectors and transpositions (and of --estimate-recall's sample)", check: integer(0, Number.MAX_SAFE_INTEGER) }),
  // PLEB.
  threshold: def({ type: "number", default: DEFAULT_PLEB.threshold, describe: "minimum relative Hamming similarity (fraction)", check: fraction(false) }),
  beam: def({ type: "number", default: DEFAULT_PLEB.beam, describe: "neighbours compared after each signature in the sorted order (at most 100000)", check: integer(1, 100_000) }),
  "shift-count": def({ type: "number", default: DEFAULT_PLEB.shiftCount, describe: `random bit transpositions after each iteration (at most ${SHIFTS_PER_BIT} × bits)`, check: integer(0, (a) => SHIFTS_PER_BIT * (typeof a.bits === "number" ? a.bits : MAX_BITS)) }),
  iterations: def({ type: "number", default: DEFAULT_PLEB.iterations, describe: "PLEB iterations (at most 100000)", check: integer(1, 100_000) }),
  verify: def({ type: "boolean", default: true, describe: "keep a PLEB pair only when the exact cosine of its documents' vectors is ≥ --cosine-threshold (--no-verify: the raw Hamming pairs, as in the thesis)" }),
  "cosine-threshold": def({ type: "number", default: DEFAULT_COSINE_THRESHOLD, describe: "--verify: minimum exact cosine; the Hamming threshold is derived from it unless --threshold is given", check: fraction(false), unusedBecause: (a) => (a.verify === false ? "does nothing with --no-verify (no pair is verified)" : undefined) }),
  "iterations-per-group": def({ type: "number", default: DEFAULT_ITERATIONS_PER_GROUP, describe: "PLEB iterations per resumable task (tuning only: pairs do not depend on it)", check: integer(1, 100_000) }),
  // Recall on a document sample (README "Calibrating").
  "estimate-recall": def({ type: "boolean", default: false, describe: `estimate recall and precision on a document sample against the exact similarity (calibration.tsv; ${CALIBRATED_METHODS.join(", ")})`, check: calibratedMethod }),
  sample: def({ type: "number", default: 1000, describe: "documents sampled to estimate recall (at most 10000000)", check: integer(1, 10_000_000), unusedBecause: withoutRecall }),
  sampling: def({ choices: ["stratified", "uniform"] as const, default: "stratified" as CalibrationSampling, describe: "the recall sample (calibration.tsv, PLEB's estimate while it iterates): strata from the run's clusters (PLEB's: the first iteration group's; narrower intervals), or uniform over the documents", unusedBecause: withoutRecall }),
  "max-width": def({ type: "number", describe: "grow the recall sample in batches until every threshold's 95 % recall interval is within ± this (e.g. 0.02) or --max-sample documents are drawn", check: fraction(false), unusedBecause: withoutRecall }),
  "max-sample": def({ type: "number", describe: "--max-width: most documents the grown sample may hold [10 × --sample]", check: integer(1, 10_000_000), unusedBecause: (a) => withoutRecall(a) ?? (a["max-width"] === undefined ? "does nothing without --max-width (the sample does not grow)" : undefined) }),
  "target-recall": def({ type: "number", describe: "end PLEB's iterations once the sampled recall's lower 95 % bound reaches this (minhash, paragraphs: with --estimate-recall, the recall to recommend for)", check: fraction(false) }),
  // Other methods.
  "num-perm": def({ type: "number", default: METHOD_DEFAULTS.minhash.numPerm, describe: "minhash: MinHash permutations (at most 1024)", check: integer(1, 1024) }),
  bands: def({ type: "number", describe: "minhash: LSH bands [derived from --threshold]", check: integer(1, 1024) }),
  rows: def({ type: "number", describe: "minhash: minhashes per band [derived from --threshold]", check: integer(1, 1024) }),
  memory: def({ type: "string", default: METHOD_DEFAULTS.minhash.memory, describe: "minhash: memory for the candidates' shingle sets while verifying; lsh-cosine and prepare: for the shards' document frequencies the vocabulary step merges at once, 24 bytes each (at most 2^24 of them) (16M to 1T, e.g. 512M, 4G)", check: memorySize }),
  "max-distance": def({ type: "number", default: METHOD_DEFAULTS.simhash384.maxDistance, describe: `simhash384: most differing bits of a pair (0–${SIMHASH_WORDS - 1})`, check: integer(0, SIMHASH_WORDS - 1, " (the 12-block pigeonhole)") }),
  "short-tokens": def({ type: "number", default: METHOD_DEFAULTS.paragraphs.shortTokens, describe: "paragraphs: paragraphs with fewer kept tokens are short (ignored)", check: integer(1, 1_000_000) }),
  keep: def({ choices: ["longest", "first", "older"] as const, default: "longest" as KeepPolicy, describe: "representative of a cluster: most tokens (ties: first) or first in the corpus (older: first, index batches before new inputs)" }),
  // Supplementing a saved index (README "Supplementing a corpus").
  against: def({ type: "string", array: true, describe: "compare the inputs with this saved index (a completed run's work directory; repeatable): only clusters with a new document are written", check: noStdio }),
  update: def({ type: "boolean", default: false, describe: "append the inputs to the --against index (only one) atomically when the run completes" }),
  "against-scan": def({ choices: ["new", "full"] as const, default: "new" as AgainstScan, describe: "lsh-cosine --against: PLEB compares only pairs with a new document, taking the old documents' links from the index (new), or searches the whole combined store, exactly as one run over the concatenation (full)", unusedBecause: (a) => (a.against === undefined ? "does nothing without --against" : undefined) }),
  pairs: def({ choices: ["edges", "all"] as const, default: DEFAULT_PAIRS.mode, describe: "pairs.tsv: pairs found between groups (edges) or every document pair (all: quadratic)" }),
  "pairs-limit": def({ type: "number", default: DEFAULT_PAIRS.limit, describe: "--pairs all: refuse to write more lines than this (0: no limit)", check: integer(0, Number.MAX_SAFE_INTEGER), unusedBecause: (a) => (a.pairs === "edges" ? "does nothing with --pairs edges (it limits --pairs all)" : undefined) }),
  // Execution.
  workers: def({ type: "number", describe: "worker threads (at most 1024; capped at twice the CPUs available) [default: the CPUs available; run and calibrate without --workers run inputs of less than 16 MiB of text in the main thread]", check: integer(1, 1024) }),
  "chunk-size": def({ type: "number", describe: `bytes of corpus per shard, at most 1 GiB (tuning only: outputs do not depend on it) [default: ${DEFAULT_CHUNK_BYTES} (${sizeText(DEFAULT_CHUNK_BYTES)}); a resumed run: its work directory's]`, check: integer(1, 1024 ** 3) }),
  quiet: def({ type: "boolean", default: false, describe: "plain log lines instead of progress bars" }),
  // Reading.
  "max-doc-bytes": def({ type: "string", default: sizeText(DEFAULT_MAX_DOC_BYTES), describe: "largest document (or line outside documents) read, e.g. 64M: a larger one is an error naming file:line (see --oversize)", check: size(1, MAX_MEMORY) }),
  oversize: def({ choices: ["error", "skip"] as const, default: "error" as Oversize, describe: "a document larger than --max-doc-bytes: stop with an error, or skip it (counted, reported; see docs/recovery.md)" }),
  // paragraphs.
  ngram: def({ type: "number", default: DEFAULT_PARAGRAPH.ngram, describe: "tokens per n-gram", check: integer(1, 64) }),
  structure: def({ type: "string", default: DEFAULT_PARAGRAPH.structure, describe: "tag that delimits units (doc: whole documents)", check: xmlName }),
  "doc-tag": def({ type: "string", default: DEFAULT_PARAGRAPH.docTag, describe: "document tag", check: xmlName }),
  count: def({ choices: COUNT_RULES, default: DEFAULT_PARAGRAPH.count, describe: "a unit's duplicate share: repeated n-grams (ngrams), tokens they cover with onion 1.2's rule that only kept paragraphs' n-grams count as seen (tokens; sequential), or with every earlier occurrence seen (tokens-any; parallel), over its tokens" }),
  boundary: def({ choices: BOUNDARIES, default: DEFAULT_PARAGRAPH.boundary, describe: "n-gram windows run across the document (doc) or restart at every sentence tag (s)" }),
  "max-stub": def({ type: "number", default: DEFAULT_PARAGRAPH.maxStub, describe: "smoothing: kept runs of at most this many tokens between duplicates go too (-1: off)", check: integer(-1, 1_000_000_000, " (-1: no smoothing)") }),
  mark: def({ type: "boolean", default: DEFAULT_PARAGRAPH.mark, describe: "prefix lines with 1<TAB> (duplicate) / 0<TAB> instead of removing" }),
  report: def({ type: "string", describe: "JSON report [<output>.report.json; none for stdout]", check: noStdio }),
  // Exact references and compare.
  "sample-list": def({ type: "string", describe: "file of document ids, one a line: only pairs with one of them", check: noStdio }),
  reference: def({ type: "string", describe: "pairs file (e.g. from hamming-full): log the running recall against it (needs --pairs all)", check: noStdio }),
  candidate: def({ type: "string", demandOption: true, describe: "pairs file to judge (a run's pairs.tsv counts every pair it stands for with the groups.tsv beside it)", check: noStdio }),
  "reference-threshold": def({ type: "number", default: 0, describe: "count reference pairs with similarity ≥ this", check: fraction(true) }),
  "candidate-threshold": def({ type: "number", default: 0, describe: "count candidate pairs with similarity ≥ this", check: fraction(true) }),
  sweep: def({ type: "string", default: "0.5:1:0.01", describe: "candidate thresholds of the sweep table, from:to:step" }),
  "vectors-workdir": def({ type: "string", describe: "prepared work directory: also L1, L2, S of Hamming vs cosine", check: noStdio }),
  json: def({ type: "string", describe: "write the report as JSON to this file (- for stdout, instead of the table)" }),
  // clean.
  from: def({ type: "string", demandOption: true, describe: "output directory of vertdup run (its clusters.tsv)", check: noStdio }),
  // slurm run.
  tasks: def({ type: "number", default: 8, describe: "array tasks of the reading and signing phases (at most 10000)", check: integer(1, 10_000) }),
  "cpus-per-task": def({ type: "number", default: 2, describe: "cores per task (its worker threads)", check: integer(1, 1024) }),
  partition: def({ type: "string", describe: "Slurm partition" }),
  "array-parallelism": def({ type: "number", describe: "at most this many array tasks at once", check: integer(1, 10_000) }),
  time: def({ type: "string", describe: "time limit of each job (sbatch --time)" }),
  mem: def({ type: "string", describe: "memory of each job (sbatch --mem)" }),
  "sbatch-arg": def({ type: "string", array: true, default: [] as string[], describe: "extra #SBATCH argument, repeatable" }),
  "dry-run": def({ type: "boolean", default: false, describe: "write the batch scripts, submit nothing" }),
};

/**
 * The options that decide what `--method` finds, shared by `run` and `slurm run`: the method,
 * the reading, the features and the search of every method, and the outputs.
 */
export const METHOD_OPTIONS = [
  "method", "keep", "pairs", "pairs-limit",
  "column", "id-attr", "partition-attr", "normalize", "lowercase", "keep-numbers", "shingle-size", "bits", "weighting", "min-df", "max-df", "seed", "projection",
  "threshold", "beam", "shift-count", "iterations", "iterations-per-group", "verify", "cosine-threshold",
  "num-perm", "bands", "rows", "memory", "max-distance", "short-tokens",
  "chunk-size", "max-doc-bytes", "oversize",
] as const satisfies readonly OptionName[];

/** Help and defaults of METHOD_OPTIONS whose defaults depend on the method (methodDefaults) or on --against (keepPolicy). */
export const METHOD_OPTION_VARIANTS = {
  threshold: { default: undefined, describe: "minimum similarity [lsh-cosine: from --cosine-threshold, 0.9 with --no-verify; minhash 0.8, paragraphs 0.8]" },
  "shingle-size": { default: undefined, describe: "consecutive kept words per term/shingle [lsh-cosine 1, minhash 5]" },
  keep: { default: undefined, describe: "representative of a cluster: most tokens (ties: first) or first in the corpus (older: first, index batches before new inputs) [longest; older with --against]" },
} as const;

function bitsCheck(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 64 || value % 64 !== 0 || value > MAX_BITS) {
    throw new VertdupError(`--${name} must be a positive multiple of 64, at most ${MAX_BITS}, got ${value}`);
  }
}

function positiveDf(name: string, value: number, argv: Readonly<Record<string, unknown>>): void {
  dfLimit(name, value as never, argv);
  if (value === 0) throw new VertdupError(`--${name} must be positive, got 0`);
}

/**
 * `--no-report` of the commands that write an output directory: not in OPTIONS, where
 * `report` is the file of `paragraphs`' JSON report.
 */
export const HTML_REPORT_OPTION = { type: "boolean", default: true, describe: "write report.html into the output directory (--no-report: skip it)" } as const;

export type OptionName = keyof typeof OPTIONS;
type Spec<K extends OptionName> = (typeof OPTIONS)[K];
/** What a command changes in an option of the schema: its default, help text or, where the option means something else there, its check. */
type Variant = Pick<OptionDef, "default" | "describe" | "demandOption" | "check">;
type Variants<K extends OptionName> = Partial<Record<K, Variant>>;
type Merged<K extends OptionName, V> = K extends keyof V ? Omit<Spec<K>, keyof V[K]> & V[K] : Spec<K>;
type AliasOf<O> = O extends { alias: infer A extends string } ? A : never;
/** The parsed options: every listed option under its name and its alias (`-w`, `-o`). */
export type Parsed<K extends OptionName, V = object> = { [k in K]: InferredOptionType<Merged<k, V>> } & { [k in K as AliasOf<Spec<k>>]: InferredOptionType<Merged<k, V>> };

/** Options yargs filled with their default (`parsed.defaulted` of the command's parse). */
function defaultedOf(y: unknown): Readonly<Record<string, boolean>> {
  return (y as { parsed?: { defaulted?: Record<string, boolean> } }).parsed?.defaulted ?? {};
}

/**
 * Adds the listed options of the schema to a command (with command-specific defaults or help
 * texts in `variants`) and checks them all before the handler runs: every value against its
 * option's limits, and under `run --method M` that no option given is one M does not use.
 */
export function withOptions<T, const K extends OptionName, const V extends Variants<K> = object>(y: Argv<T>, names: readonly K[], variants?: V): Argv<T & Parsed<K, V>> {
  const defs = new Map<OptionName, OptionDef>(names.map((name) => [name, { ...OPTIONS[name], ...variants?.[name] }]));
  const specs: Record<string, Options> = {};
  for (const [name, { check: _check, unusedBecause: _unused, ...spec }] of defs) specs[name] = spec;
  // yargs passes its instance as the second argument of a middleware.
  const check = (argv: Record<string, unknown>, instance?: unknown) => checkOptions(defs, argv, defaultedOf(instance));
  let checked = y.options(specs).middleware(check, false);
  if (defs.has("method")) {
    for (const [label, group] of methodGroups(defs)) checked = checked.group(group, label);
  }
  return checked as unknown as Argv<T & Parsed<K, V>>;
}

/** The options grouped by the methods that use them (for the help). */
function methodGroups(defs: ReadonlyMap<OptionName, OptionDef>): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const name of defs.keys()) {
    const methods = methodsUsing(name);
    const label = methods === undefined ? "Options of every method:" : `Options of --method ${methods.join(", ")}:`;
    groups.set(label, [...(groups.get(label) ?? []), name]);
  }
  return groups;
}

function checkOptions(defs: ReadonlyMap<OptionName, OptionDef>, argv: Readonly<Record<string, unknown>>, defaulted: Readonly<Record<string, boolean>>): void {
  // First, so that no check below sees a list where it expects one value.
  for (const [name, o] of defs) refuseRepeated(name, o, argv[name]);
  const method = defs.has("method") ? (argv.method as MethodName) : undefined;
  for (const [name, o] of defs) {
    const value = argv[name];
    if (value === undefined) continue;
    const methods = method === undefined ? undefined : methodsUsing(name);
    if (method !== undefined && methods !== undefined && !methods.includes(method) && !defaulted[name]) {
      throw new VertdupError(`--${name} does not apply to --method ${method} (it is an option of ${methods.join(", ")})`);
    }
    o.check?.(name, value as never, argv);
    const unused = defaulted[name] ? undefined : o.unusedBecause?.(argv);
    if (unused !== undefined) throw new VertdupError(`--${name} ${unused}`);
  }
}

/** An option given more than once that takes one value (only `array: true` ones repeat): refused, not the last or a list. */
function refuseRepeated(name: string, o: Options, value: unknown): void {
  if (o.array === true || !Array.isArray(value)) return;
  throw repeatedError(name, value);
}

function repeatedError(name: string, values: readonly unknown[]): VertdupError {
  const times = values.length === 2 ? "twice" : `${values.length} times`;
  return new VertdupError(`--${name} given ${times} (${values.map((v) => JSON.stringify(v)).join(", ")}): it takes one value`);
}

/**
 * The options given an empty value (`--seed ''`, `--seed=`, `-o ''`) in the raw arguments:
 * the parser reads an empty number as 0 and keeps an empty string, so that they would pass.
 */
function emptyValued(args: readonly string[]): string[] {
  const names: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") break;
    const eq = arg.indexOf("=");
    if (arg.startsWith("--") && eq > 2) {
      if (eq === arg.length - 1) names.push(arg.slice(2, eq));
    } else if (/^--?[^-]/.test(arg) && args[i + 1] === "") {
      names.push(arg.replace(/^--?/, ""));
    }
  }
  return names;
}

/**
 * Global middleware of a parse of `args`: an option that takes a value given an empty one is
 * refused (a boolean followed by '' is left to the positional arguments' checks).
 */
export function refuseEmptyValues(args: readonly string[]): (argv: unknown, instance?: unknown) => void {
  const names = emptyValued(args);
  return (_argv, instance) => {
    if (names.length === 0) return;
    const options = (instance as { getOptions?: () => { key: Record<string, unknown>; boolean: string[] } } | undefined)?.getOptions?.();
    for (const name of names) {
      if (options !== undefined && (!(name in options.key) || options.boolean.includes(name))) continue;
      throw new VertdupError(`${name.length === 1 ? "-" : "--"}${name} needs a value (it was given an empty one)`);
    }
  };
}

/** Each option written in the raw arguments, in order: its name as written (`o`, `outdir`, `no-report`), its `=` value and the argument after it. */
function writtenOptions(args: readonly string[]): { name: string; value?: string; next?: string }[] {
  const written: { name: string; value?: string; next?: string }[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") break;
    const m = /^--?([^-=][^=]*)(?:=([\s\S]*))?$/.exec(arg);
    if (m !== null) written.push({ name: m[1], value: m[2], next: args[i + 1] });
  }
  return written;
}

interface ParserOptions {
  key: Record<string, unknown>;
  alias: Record<string, string[]>;
  array: string[];
  boolean: string[];
  number: string[];
}

/**
 * Global middleware of a parse of `args`: an option that takes one value, written more than
 * once, reaches the commands' checks as the list of its values (refused there), also where
 * the parser merged them into one (it reads `--seed 1 --seed 1` as 2); a flag written more
 * than once (`--quiet --quiet`, `--report --no-report`), which the parser reads as its last,
 * is refused here, also where a command declares it beside its checked options (`--report`).
 */
export function keepRepeatedValues(args: readonly string[]): (argv: Record<string, unknown>, instance?: unknown) => void {
  const written = writtenOptions(args);
  return (argv, instance) => {
    const options = (instance as { getOptions?: () => ParserOptions } | undefined)?.getOptions?.();
    if (options === undefined) return;
    const keyOf = (name: string) => (name in options.key ? name : Object.keys(options.alias).find((k) => options.alias[k].includes(name)));
    const values = new Map<string, unknown[]>();
    for (const w of written) {
      // `--no-x` is flag x given false, unless an option is named so.
      const negated = keyOf(w.name) === undefined && w.name.startsWith("no-") && options.boolean.includes(keyOf(w.name.slice(3)) ?? "");
      const key = keyOf(negated ? w.name.slice(3) : w.name);
      // --help and --version are the parser's own: it answers them before any check.
      if (key === undefined || options.array.includes(key) || key === "help" || key === "version") continue;
      let value: unknown;
      if (options.boolean.includes(key)) value = negated ? false : (w.value ?? (w.next === "true" || w.next === "false" ? w.next : "true")) !== "false";
      else value = options.number.includes(key) ? Number(w.value ?? w.next ?? "") : (w.value ?? w.next ?? "");
      values.set(key, [...(values.get(key) ?? []), value]);
    }
    for (const [key, list] of values) {
      if (list.length < 2 || Array.isArray(argv[key])) continue;
      if (options.boolean.includes(key)) throw repeatedError(key, list);
      for (const name of [key, ...(options.alias[key] ?? [])]) argv[name] = list;
    }
  };
}

/** yargs drops a bare `-` from positional lists: it travels under this name instead. */
const STDIN_ARG = "\u0000stdin";

export function protectStdinArg(arg: string): string {
  return arg === "-" ? STDIN_ARG : arg;
}

/**
 * `--sbatch-arg VALUE` as `--sbatch-arg=VALUE`: its values are sbatch options, which begin
 * with `-`, and the parser would take a separate one for an option of vertdup's own.
 */
export function joinSbatchArgs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--sbatch-arg" && i + 1 < args.length) out.push(`--sbatch-arg=${args[++i]}`);
    else out.push(args[i]);
  }
  return out;
}

/** Global middleware: `-` again in every positional and option value, whatever took it. */
export function restoreStdinArgs(argv: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(argv)) {
    if (value === STDIN_ARG) argv[key] = "-";
    else if (Array.isArray(value)) argv[key] = value.map((v) => (v === STDIN_ARG ? "-" : v));
  }
}

/** The input paths of a command as strings. */
export function inputPaths(inputs: readonly (string | number)[]): string[] {
  return inputs.map(String);
}

// Parsed (and already checked) options → the options of the pipeline's phases.

export function pairsOutputFrom(a: { pairs: "edges" | "all"; "pairs-limit": number }): PairsOutput {
  return { mode: a.pairs, limit: a["pairs-limit"] };
}

interface ParsedPrepare {
  bits: number;
  "shingle-size": number;
  weighting: "tfidf" | "tf";
  "keep-numbers": boolean;
  normalize: Normalization;
  lowercase: boolean;
  "min-df": number;
  "max-df"?: number;
  column: number;
  "id-attr": string;
  "partition-attr"?: string;
  seed: number;
  projection: PrepareOptions["projection"];
}

export function prepareOptionsFrom(a: ParsedPrepare): PrepareOptions {
  return {
    bits: a.bits,
    shingleSize: a["shingle-size"],
    weighting: a.weighting,
    keepNumbers: a["keep-numbers"],
    normalize: a.normalize,
    lowercase: a.lowercase,
    minDf: a["min-df"],
    maxDf: a["max-df"] ?? Number.POSITIVE_INFINITY,
    column: a.column,
    idAttr: a["id-attr"],
    ...(a["partition-attr"] === undefined ? {} : { partitionAttr: a["partition-attr"] }),
    seed: a.seed,
    projection: a.projection,
  };
}

interface ParsedPleb {
  /** Undefined when not given: derived from the cosine threshold (--verify) or the default. */
  threshold?: number;
  beam: number;
  "shift-count": number;
  iterations: number;
  seed: number;
  pairs?: PlebOptions["pairs"];
  "estimate-recall"?: boolean;
  sample?: number;
  "target-recall"?: number;
  sampling?: CalibrationSampling;
  verify: boolean;
  "cosine-threshold": number;
}

/** PLEB's options for signatures of `bits` bits; with --verify, the Hamming threshold is candidateThreshold's unless given. */
export function plebOptionsFrom(a: ParsedPleb, bits: number): PlebOptions {
  const cosine = a.verify ? a["cosine-threshold"] : undefined;
  const threshold = a.threshold ?? (cosine === undefined ? DEFAULT_PLEB.threshold : candidateThreshold(cosine, bits));
  const opts: PlebOptions = { threshold, beam: a.beam, shiftCount: a["shift-count"], iterations: a.iterations, seed: a.seed, pairs: a.pairs ?? DEFAULT_PLEB.pairs };
  // Absent unless asked for, so that the plan's fingerprint of an ordinary run stays the same.
  if (cosine !== undefined) opts.cosineThreshold = cosine;
  if (a["estimate-recall"] === true || a["target-recall"] !== undefined) {
    opts.recallSample = a.sample;
    opts.recallSampling = a.sampling ?? "stratified";
  }
  if (a["target-recall"] !== undefined) opts.targetRecall = a["target-recall"];
  return opts;
}

/** How `--max-width` grows a calibration's sample (absent: it does not). */
export function sampleGrowthFrom(a: { "max-width"?: number; "max-sample"?: number }): { maxWidth?: number; maxSample?: number } {
  return a["max-width"] === undefined ? {} : { maxWidth: a["max-width"], ...(a["max-sample"] === undefined ? {} : { maxSample: a["max-sample"] }) };
}

export function maxDocBytesFrom(a: { "max-doc-bytes"?: string }): number | undefined {
  return a["max-doc-bytes"] === undefined ? undefined : parseSize(a["max-doc-bytes"], "max-doc-bytes");
}

export function executionOptionsFrom(a: { workers?: number; "tmp-dir"?: string; quiet: boolean; "chunk-size"?: number; "iterations-per-group"?: number; "max-doc-bytes"?: string; oversize?: Oversize; memory?: string }): ExecutionOptions {
  return {
    workers: a.workers ?? availableParallelism(),
    tmpDir: a["tmp-dir"],
    quiet: a.quiet,
    chunkBytes: a["chunk-size"],
    iterationsPerGroup: a["iterations-per-group"],
    maxDocBytes: maxDocBytesFrom(a),
    oversize: a.oversize,
    ...(a.memory === undefined ? {} : { memory: parseSize(a.memory, "memory") }),
  };
}
