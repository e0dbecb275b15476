import { existsSync, rmSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeSystemError, removeOwnTemporaries } from "../util/atomic.js";
import { ensureWritableDir } from "../util/output-dir.js";
import { VertdupError } from "../core/errors.js";
import { atExit, interruptedBy } from "../util/exit-cleanup.js";
import { claimWorkdir } from "./layout.js";
import { lockWorkdir, type LockOptions, type WorkdirLock } from "./lock.js";

/** A private temporary directory, removed by `remove` or, failing that, at exit (a signal, an error). */
export async function temporaryDirectory(tmpDir: string | undefined, prefix: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const parent = tmpDir ?? tmpdir();
  const path = await mkdtemp(join(parent, prefix)).catch((err: unknown) => {
    throw new VertdupError(`${parent}: cannot create a temporary directory in it (${describeSystemError(err)})`);
  });
  // Retried: a rename of this process still in flight may add a file while the tree is removed.
  const forget = atExit(() => rmSync(path, { recursive: true, force: true, maxRetries: 3 }));
  return {
    path,
    async remove() {
      // The exit hook stays until the tree is gone: a signal may end the process mid-removal.
      await rm(path, { recursive: true, force: true });
      forget();
    },
  };
}

export interface WorkdirUse extends LockOptions {
  /** Create (or adopt) the directory; otherwise it must be an existing work directory. */
  create: boolean;
  /** How to continue after an interruption, said with the kept directory (absent: `--resume -w <dir>`). */
  continueWith?: string;
}

/** Claims and locks a work directory the user named; the caller releases the lock. */
export async function takeWorkdir(workdir: string, use: WorkdirUse): Promise<WorkdirLock> {
  if (use.create) await claimWorkdir(workdir);
  else if (!existsSync(workdir)) throw new VertdupError(`${workdir}: no such work directory`);
  const lock = await lockWorkdir(workdir, use);
  // Said once, by the exit hook or by the release an interruption unwinds to (workers stop first).
  const sayKept = () => {
    if (interruptedBy() !== null) process.stderr.write(`vertdup: the work directory ${workdir} is kept: ${use.continueWith ?? `continue with --resume -w ${workdir}`}\n`);
  };
  const forget = atExit(() => {
    removeOwnTemporaries(workdir);
    sayKept();
  });
  return {
    token: lock.token,
    async release() {
      forget();
      removeOwnTemporaries(workdir);
      sayKept();
      await lock.release();
    },
    async abandon() {
      forget();
      removeOwnTemporaries(workdir);
      await lock.abandon();
    },
  };
}

/**
 * Runs `body` in the work directory `given` (claimed and locked, kept afterwards) or, without
 * one, in a temporary directory under `tmpDir` removed afterwards, also on errors and signals.
 * `continueWith`: what an interrupted run says instead of `--resume`, where it cannot resume.
 */
export async function useWorkdir<T>(given: string | undefined, tmpDir: string | undefined, body: (workdir: string) => Promise<T>, continueWith?: string): Promise<T> {
  if (given === undefined) {
    // Private to this process: nobody else to lock out.
    const temporary = await temporaryDirectory(tmpDir, "vertdup-");
    try {
      return await body(temporary.path);
    } finally {
      await temporary.remove();
    }
  }
  const lock = await takeWorkdir(given, { create: true, continueWith });
  try {
    return await body(given);
  } finally {
    await lock.release();
  }
}

/**
 * Locks the output directory `outdir` of a command (made if missing), so that a second one
 * writing into it is refused instead of leaving a mix of both one's files; null when it is the
 * command's work directory `workdir`, locked already.
 */
export async function lockOutdir(outdir: string, workdir?: string, options: LockOptions = {}): Promise<WorkdirLock | null> {
  await ensureWritableDir(outdir);
  if (workdir !== undefined && (await realpath(outdir)) === (await realpath(workdir))) return null;
  return lockWorkdir(outdir, { ...options, kind: "output directory (-o)" });
}
