import type { Argv } from "yargs";
import { pairsOutputFrom } from "../cli-options.js";
import { DEFAULT_PLEB, DEFAULT_PREPARE, type PairsOutput } from "../options.js";
import { VertdupError } from "../util/errors.js";
import { parseSize } from "../util/size.js";
import { resolveBands } from "./lsh-bands.js";
import { METHOD_DEFAULTS, METHOD_NAMES, type FeatureOptions, type KeepPolicy, type MethodName } from "./method-options.js";
import type { MethodRun } from "./run-method.js";
import { SIMHASH_WORDS } from "./simhash384.js";

/**
 * Options of `run --method`. --threshold and --shingle-size lose their yargs defaults here
 * because the default depends on the method (filled in by `methodDefaults`).
 */
export function withMethodOptions<T>(y: Argv<T>) {
  return y
    .option("method", { choices: METHOD_NAMES, default: "lsh-cosine" as MethodName, describe: "how documents are compared (README: which to pick)" })
    .option("threshold", { type: "number", default: undefined, describe: "minimum similarity [lsh-cosine 0.9, minhash 0.8, paragraphs 0.8]" })
    .option("shingle-size", { type: "number", default: undefined, describe: "consecutive kept words per term/shingle [lsh-cosine 1, minhash 5]" })
    .option("num-perm", { type: "number", default: METHOD_DEFAULTS.minhash.numPerm, describe: "minhash: MinHash permutations" })
    .option("bands", { type: "number", describe: "minhash: LSH bands [derived from --threshold]" })
    .option("rows", { type: "number", describe: "minhash: minhashes per band [derived from --threshold]" })
    .option("memory", { type: "string", default: METHOD_DEFAULTS.minhash.memory, describe: "minhash: memory for the candidates' shingle sets while verifying (e.g. 512M, 4G)" })
    .option("max-distance", { type: "number", default: METHOD_DEFAULTS.simhash384.maxDistance, describe: "simhash384: most differing bits of a pair (0–11)" })
    .option("short-tokens", { type: "number", default: METHOD_DEFAULTS.paragraphs.shortTokens, describe: "paragraphs: paragraphs with fewer kept tokens are short (ignored)" })
    .option(...KEEP_OPTION);
}

/** How clusters.tsv chooses a cluster's representative (run and pleb). */
export const KEEP_OPTION = [
  "keep",
  { choices: ["longest", "first"] as const, default: "longest" as KeepPolicy, describe: "representative of a cluster: most tokens (ties: first) or first in the corpus" },
] as const;

/** Threshold and shingle size of the method when not given. */
export function methodDefaults(method: MethodName, threshold?: number, shingleSize?: number): { threshold: number; shingleSize: number } {
  const t = method === "minhash" ? METHOD_DEFAULTS.minhash.threshold : method === "paragraphs" ? METHOD_DEFAULTS.paragraphs.threshold : DEFAULT_PLEB.threshold;
  const k = method === "minhash" ? METHOD_DEFAULTS.minhash.shingleSize : DEFAULT_PREPARE.shingleSize;
  return { threshold: threshold ?? t, shingleSize: shingleSize ?? k };
}

function integerAtLeast(name: string, v: number, min: number): number {
  if (!Number.isInteger(v) || v < min) throw new VertdupError(`--${name} must be an integer >= ${min}, got ${v}`);
  return v;
}

interface ParsedMethod {
  method: MethodName;
  threshold: number;
  "shingle-size": number;
  "num-perm": number;
  bands?: number;
  rows?: number;
  "max-distance": number;
  memory: string;
  "short-tokens": number;
  keep: KeepPolicy;
  pairs: PairsOutput["mode"];
  "pairs-limit": number;
  column: number;
  "id-attr": string;
  lowercase: boolean;
  "keep-numbers": boolean;
  seed: number;
}

/** The run of a method other than lsh-cosine, from parsed options (defaults already filled). */
export function methodRunFrom(a: ParsedMethod): MethodRun {
  if (a.method === "lsh-cosine") throw new Error("lsh-cosine is the core pipeline");
  if (!(a.threshold > 0 && a.threshold <= 1)) throw new VertdupError(`--threshold must be in (0, 1], got ${a.threshold}`);
  const numPerm = integerAtLeast("num-perm", a["num-perm"], 1);
  if (a.method === "simhash384" && !(Number.isInteger(a["max-distance"]) && a["max-distance"] >= 0 && a["max-distance"] < SIMHASH_WORDS)) {
    throw new VertdupError(`--max-distance must be an integer from 0 to ${SIMHASH_WORDS - 1} (the 12-block pigeonhole), got ${a["max-distance"]}`);
  }
  const { bands, rows } = a.method === "minhash" ? resolveBands(a.threshold, numPerm, a.bands, a.rows) : { bands: 1, rows: 1 };
  const features: FeatureOptions = {
    column: integerAtLeast("column", a.column, 0),
    idAttr: a["id-attr"],
    lowercase: a.lowercase,
    keepNumbers: a["keep-numbers"],
    shingleSize: integerAtLeast("shingle-size", a["shingle-size"], 1),
    numPerm,
    bands,
    rows,
    seed: integerAtLeast("seed", a.seed, 0),
    shortTokens: integerAtLeast("short-tokens", a["short-tokens"], 1),
  };
  return { method: a.method, features, search: { threshold: a.threshold, maxDistance: a["max-distance"], memory: parseSize(a.memory, "memory") }, keep: a.keep, pairs: pairsOutputFrom(a) };
}
