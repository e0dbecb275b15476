import { access, mkdir, realpath, stat } from "node:fs/promises";
import { constants } from "node:fs";
import { basename, dirname, join } from "node:path";
import { describeSystemError, errorCode } from "./atomic.js";
import { VertdupError } from "../core/errors.js";

/**
 * `mkdir -p`, failing with the real cause: Node's recursive mkdir reports ENOENT where a
 * parent cannot be created on a read-only file system.
 */
export async function makeDirectory(dir: string): Promise<void> {
  try {
    await mkdir(dir);
  } catch (err) {
    if (errorCode(err) === "EEXIST" && (await stat(dir)).isDirectory()) return;
    if (errorCode(err) !== "ENOENT" || dirname(dir) === dir) throw err;
    await makeDirectory(dirname(dir));
    await mkdir(dir).catch((again: unknown) => (errorCode(again) === "EEXIST" ? undefined : Promise.reject(again)));
  }
}

/** Creates `dir` if needed and checks that files can be written in it, before any work. */
export async function ensureWritableDir(dir: string): Promise<void> {
  try {
    await makeDirectory(dir);
    await access(dir, constants.W_OK);
  } catch (err) {
    throw new VertdupError(`${dir}: cannot write to this directory (${describeSystemError(err)})`);
  }
}

/** Where a file is, whatever the path that names it: its real path, and its device and inode if it exists. */
async function identity(path: string): Promise<{ real: string; dev?: number; ino?: number }> {
  const s = await stat(path).catch((err: unknown) => {
    if (errorCode(err) === "ENOENT" || errorCode(err) === "ENOTDIR") return null;
    throw err;
  });
  if (s !== null) return { real: await realpath(path), dev: s.dev, ino: s.ino };
  // Not there yet: the real path of its directory, when that exists, names it.
  const dir = await realpath(dirname(path)).catch(() => dirname(path));
  return { real: join(dir, basename(path)) };
}

/**
 * Refuses, before any work, outputs that would replace an input: the same real path
 * (`./x` and `x`, a symlinked directory) or the same device and inode (a hard link).
 * `-` (standard input or output) is never a file to compare.
 */
export async function refuseOverwritingInputs(outputs: readonly string[], inputs: readonly string[]): Promise<void> {
  const files = inputs.filter((i) => i !== "-");
  if (files.length === 0) return;
  const known = await Promise.all(files.map(identity));
  for (const output of outputs) {
    if (output === "-") continue;
    const out = await identity(output);
    const k = known.findIndex((i) => i.real === out.real || (out.ino !== undefined && i.dev === out.dev && i.ino === out.ino));
    if (k >= 0) throw new VertdupError(`${output}: would overwrite input ${files[k]}`);
  }
}
