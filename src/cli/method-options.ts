import type { MethodRun } from "../methods/sets/set-method.js";
import { pairsOutputFrom } from "./options.js";
import { DEFAULT_PLEB, DEFAULT_PREPARE, type PairsOutput } from "../core/options.js";
import { parseSize } from "../util/size.js";
import { isSetMethod, SET_METHODS } from "../methods/sets/set-methods.js";
import type { FeatureOptions, KeepPolicy, MethodName } from "../core/method-options.js";

/** Threshold and shingle size of the method when not given. */
export function methodDefaults(method: MethodName, threshold?: number, shingleSize?: number): { threshold: number; shingleSize: number } {
  const own = isSetMethod(method) ? SET_METHODS[method].defaults : undefined;
  return { threshold: threshold ?? own?.threshold ?? DEFAULT_PLEB.threshold, shingleSize: shingleSize ?? own?.shingleSize ?? DEFAULT_PREPARE.shingleSize };
}

/** `--keep`, or its default: the older document when there are --against indices, else the longest. */
export function keepPolicy(keep: KeepPolicy | undefined, against: readonly string[]): KeepPolicy {
  return keep ?? (against.length > 0 ? "older" : "longest");
}

/** Parsed options with the method's threshold and shingle size where not given. */
export function withMethodDefaults<A extends { method: MethodName; threshold?: number; "shingle-size"?: number }>(a: A): A & { threshold: number; "shingle-size": number } {
  const { threshold, shingleSize } = methodDefaults(a.method, a.threshold, a["shingle-size"]);
  return { ...a, threshold, "shingle-size": shingleSize };
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

/** The run of a method other than lsh-cosine, from parsed and checked options (defaults already filled). */
export function methodRunFrom(a: ParsedMethod): MethodRun {
  if (!isSetMethod(a.method)) throw new Error(`${a.method} is not a set method`);
  const { bands, rows } = SET_METHODS[a.method].banding?.(a.threshold, a["num-perm"], a.bands, a.rows) ?? { bands: 1, rows: 1 };
  const features: FeatureOptions = {
    column: a.column,
    idAttr: a["id-attr"],
    lowercase: a.lowercase,
    keepNumbers: a["keep-numbers"],
    shingleSize: a["shingle-size"],
    numPerm: a["num-perm"],
    bands,
    rows,
    seed: a.seed,
    shortTokens: a["short-tokens"],
  };
  return { method: a.method, features, search: { threshold: a.threshold, maxDistance: a["max-distance"], memory: parseSize(a.memory, "memory") }, keep: a.keep, pairs: pairsOutputFrom(a) };
}
