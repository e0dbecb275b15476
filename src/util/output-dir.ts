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

/** Whether two identities name one file: the same real path, or the same device and inode. */
function sameFile(a: { real: string; dev?: number; ino?: number }, b: { real: string; dev?: number; ino?: number }): boolean {
  return a.real === b.real || (a.ino !== undefined && a.dev === b.dev && a.ino === b.ino);
}

/**
 * Refuses, before any work, output files that would replace an input or each other, or that
 * name a directory: the same real path (`./x` and `x`, a symlinked directory) or the same
 * device and inode (a hard link). `-` (standard input or output) is never a file to compare.
 * Every file a command reads is an input (also those found through --from or --reference).
 */
export async function checkOutputs(outputs: readonly string[], inputs: readonly string[]): Promise<void> {
  const files = inputs.filter((i) => i !== "-");
  const known = await Promise.all(files.map(identity));
  const written: { path: string; id: Awaited<ReturnType<typeof identity>> }[] = [];
  for (const output of outputs) {
    if (output === "-") continue;
    const out = await identity(output);
    const k = known.findIndex((i) => sameFile(i, out));
    if (k >= 0) throw new VertdupError(`${output}: would overwrite input ${files[k]}`);
    const other = written.find((w) => sameFile(w.id, out));
    if (other !== undefined) throw new VertdupError(`${output}: is also the path of another output (${other.path}): give each output its own file`);
    if (out.ino !== undefined && (await stat(output)).isDirectory()) throw new VertdupError(`${output}: is a directory, not a file to write`);
    written.push({ path: output, id: out });
  }
}
