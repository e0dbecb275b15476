import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { VertdupError } from "../core/errors.js";

/**
 * Reading the JSON files vertdup wrote itself (manifests, markers, configurations): a file
 * cut short or corrupted (a disk that filled, an editor, a copy interrupted) is refused by a
 * VertdupError naming the file and saying what to do (`advice`), not a SyntaxError trace.
 */
export type Reviver = (key: string, value: unknown) => unknown;

export function parseJsonFile<T>(path: string, text: string, advice: string, reviver?: Reviver): T {
  try {
    return JSON.parse(text, reviver) as T;
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    throw new VertdupError(`${path}: not valid JSON, the file is truncated or corrupted (${err.message}): ${advice}`);
  }
}

export async function readJsonFile<T>(path: string, advice: string, reviver?: Reviver): Promise<T> {
  return parseJsonFile<T>(path, await readFile(path, "utf8"), advice, reviver);
}

export function readJsonFileSync<T>(path: string, advice: string, reviver?: Reviver): T {
  return parseJsonFile<T>(path, readFileSync(path, "utf8"), advice, reviver);
}

/** What to do about a damaged file of a work directory. */
export const WORKDIR_ADVICE = "the work directory cannot be used as it is: run again without --resume (it is then cleared), or with another -w";
/** What to do about a damaged manifest.json of an output directory. */
export const OUTPUT_ADVICE = "the output directory does not hold a complete run: run vertdup run again into it";
