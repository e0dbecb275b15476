import { randomBytes } from "node:crypto";
import { readFileSync, unlinkSync } from "node:fs";
import { link, readFile, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { errorCode, writeAtomic, writeError } from "../util/atomic.js";
import { VertdupError } from "../core/errors.js";
import { atExit } from "../util/exit-cleanup.js";

/**
 * One run at a time in a work directory, and in an output directory (`run -o`: two runs
 * writing one set of outputs would leave a mix). The lock is a file created complete under a
 * temporary name and hard-linked to `vertdup.lock` (link fails if the name exists, also on
 * NFS, where O_EXCL once did not), holding who took it. A Slurm submission takes it for its
 * run token and leaves it to its jobs: tasks carrying that token are admitted, in parallel.
 */
export const LOCK_FILE = "vertdup.lock";

export interface LockHolder {
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  since: string;
  token: string;
  /** Taken by `vertdup slurm run` for its jobs, which outlive the submitting process. */
  slurm: boolean;
  /** A Slurm run's -o: the run's work directory, which `slurm status` reads. */
  runWorkdir?: string;
}

export interface WorkdirLock {
  token: string;
  /** Gives the lock up (also done at exit); a Slurm lock stays for the run's jobs. */
  release(): Promise<void>;
  /** Gives the lock up, a Slurm lock too (no job carries its token), unless it took over an earlier submission's. */
  abandon(): Promise<void>;
}

export interface LockOptions {
  /** Take the lock for a Slurm run's jobs: kept after this process exits. */
  slurm?: boolean;
  /** Whether the Slurm run holding the lock is over (none of its jobs queued or running). */
  slurmRunOver?: (holder: LockHolder) => Promise<boolean>;
  /** What the directory is to the user, in a refusal: "work directory" (default) or "output directory". */
  kind?: string;
  /** The token to take it under: a Slurm run's -o is taken under its work directory's, which its last job releases both by. */
  token?: string;
  /** The work directory of the Slurm run taking an -o (said to whoever finds it locked). */
  runWorkdir?: string;
}

function lockPath(workdir: string): string {
  return join(workdir, LOCK_FILE);
}

function describeHolder(h: LockHolder): string {
  return `pid ${h.pid}@${h.host} since ${h.since}`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errorCode(err) === "EPERM";
  }
}

async function readHolder(workdir: string): Promise<LockHolder | null> {
  try {
    return JSON.parse(await readFile(lockPath(workdir), "utf8")) as LockHolder;
  } catch (err) {
    if (errorCode(err) === "ENOENT") return null;
    throw new VertdupError(`${lockPath(workdir)}: unreadable lock (${err instanceof Error ? err.message : String(err)}): remove it if no vertdup run uses ${workdir}`);
  }
}

/** Links a complete lock file into place; false if another holds the name. */
async function tryLink(workdir: string, holder: LockHolder): Promise<boolean> {
  const path = lockPath(workdir);
  const tmp = `${path}.${holder.token}`;
  await writeAtomic(tmp, JSON.stringify(holder) + "\n");
  try {
    await link(tmp, path);
    return true;
  } catch (err) {
    if (errorCode(err) === "EEXIST") return false;
    // NFS may report a failure for a link it made: the link count tells.
    if ((await stat(tmp).catch(() => null))?.nlink === 2) return true;
    throw writeError(path, err);
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/** Why `holder` keeps the lock from us, or null when its run is gone and the lock may go. */
async function refusal(workdir: string, holder: LockHolder, options: LockOptions): Promise<string | null> {
  const remove = `remove ${lockPath(workdir)}`;
  if (holder.slurm) {
    if (options.slurm && options.slurmRunOver !== undefined && (await options.slurmRunOver(holder))) return null;
    // An -o is taken over only by a submission into the run's own work directory.
    const again = holder.runWorkdir === undefined ? "submit again with vertdup slurm run" : `submit that run again (-w ${holder.runWorkdir})`;
    return `${workdir}: in use by the Slurm run submitted by ${describeHolder(holder)} (vertdup slurm status -w ${holder.runWorkdir ?? workdir}); once none of its jobs is queued or running, ${again}, or ${remove}`;
  }
  if (holder.host !== hostname()) {
    return `${workdir}: in use by a vertdup run on another host (${describeHolder(holder)}); if that run is no longer running, ${remove}`;
  }
  if (alive(holder.pid)) return `${workdir}: in use by another vertdup run (${describeHolder(holder)}): wait for it to end or give another ${options.kind ?? "work directory"}`;
  return null;
}

/** Takes the work directory's lock, or refuses naming its holder; a dead holder's lock is taken over. */
export async function lockWorkdir(workdir: string, options: LockOptions = {}): Promise<WorkdirLock> {
  const holder: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), token: options.token ?? randomBytes(8).toString("hex"), slurm: options.slurm ?? false, runWorkdir: options.runWorkdir };
  // A lock taken over (an earlier submission's, whose jobs are done) is not abandoned: the directory holds that run's work.
  let tookOver = false;
  for (let attempt = 0; !(await tryLink(workdir, holder)); attempt++) {
    const current = await readHolder(workdir);
    if (current === null) continue;
    const why = await refusal(workdir, current, options);
    if (why !== null || attempt >= 3) throw new VertdupError(why ?? `${workdir}: cannot take the lock (${LOCK_FILE} keeps changing)`);
    // Only the lock just judged stale goes, not one another taker put in its place meanwhile.
    if ((await readHolder(workdir))?.token !== current.token) continue;
    process.stderr.write(`vertdup: ${workdir}: taking over the lock of a run that is gone (${describeHolder(current)})\n`);
    tookOver = true;
    await unlink(lockPath(workdir)).catch(() => undefined);
  }
  const ours = () => {
    try {
      return (JSON.parse(readFileSync(lockPath(workdir), "utf8")) as LockHolder).token === holder.token;
    } catch {
      return false;
    }
  };
  const drop = () => {
    if (ours()) unlinkSync(lockPath(workdir));
  };
  const forget = holder.slurm ? () => undefined : atExit(drop);
  return {
    token: holder.token,
    async release() {
      forget();
      if (!holder.slurm) drop();
    },
    async abandon() {
      forget();
      if (!holder.slurm || !tookOver) drop();
    },
  };
}

/**
 * The locks of several directories (the `--against` indices) as one: taken in order, all
 * given back if one is refused; released in reverse.
 */
export async function lockWorkdirs(dirs: readonly string[]): Promise<WorkdirLock> {
  const taken: WorkdirLock[] = [];
  const release = async () => {
    for (const lock of taken.reverse()) await lock.release();
  };
  try {
    for (const dir of dirs) taken.push(await lockWorkdir(dir));
  } catch (err) {
    await release();
    throw err;
  }
  return { token: taken.map((l) => l.token).join(","), release, abandon: release };
}

/** Runs `body` holding the locks of `dirs` (the indices of `--against`): no other run changes them while it reads or appends. */
export async function withLocks<T>(dirs: readonly string[], body: () => Promise<T>): Promise<T> {
  const lock = await lockWorkdirs(dirs);
  try {
    return await body();
  } finally {
    await lock.release();
  }
}

/** Admits a task of the Slurm run whose token it carries; refuses it once another run holds the directory. */
export async function admitTask(workdir: string, token: string): Promise<void> {
  const holder = await readHolder(workdir);
  if (holder?.token === token) return;
  const now = holder === null ? "nobody holds it now" : `it is now held by ${describeHolder(holder)}`;
  throw new VertdupError(`${workdir}: this task's run (token ${token}) no longer holds the work directory: ${now}`);
}

/** Ends the Slurm run holding the lock with `token` (its last job, once the outputs are written). */
export async function releaseSlurmRun(workdir: string, token: string): Promise<void> {
  if ((await readHolder(workdir))?.token === token) await unlink(lockPath(workdir));
}
