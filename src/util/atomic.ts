import { closeSync, createWriteStream, fsync, fsyncSync, fstatSync, openSync, readdirSync, renameSync, rmSync, writeSync, type WriteStream } from "node:fs";
import { copyFile, link, open, rename, rm, type FileHandle } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import type { Writable } from "node:stream";
import { VertdupError } from "../core/errors.js";
import { atExit } from "./exit-cleanup.js";

/**
 * The one writer of every file vertdup puts in place: written under a temporary name,
 * checked to hold every byte, fsynced, renamed, and its directory fsynced, so that a
 * completion marker can never outlive the data it vouches for. Temporary files not yet
 * committed are removed when the process exits (an error, a signal), so that a failed
 * write never leaves a large `.tmp` behind.
 */
const pending = new Set<string>();
let hooked = false;

function track(tmp: string): void {
  if (!hooked) {
    atExit(() => {
      for (const name of pending) {
        try {
          rmSync(name, { force: true });
        } catch {
          // Never created (its directory is missing or unusable).
        }
      }
    });
    hooked = true;
  }
  pending.add(tmp);
}

export function temporaryName(path: string): string {
  return `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
}

/**
 * Removes this process's temporary files under `dir`. Worker threads share the pid but not
 * the exit clean-ups: a worker stopped mid-write (the pool destroyed after another task
 * failed) leaves its temporary file, which only the main thread can remove.
 */
export function removeOwnTemporaries(dir: string): void {
  const mark = `.tmp-${process.pid}-`;
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true, encoding: "utf8" });
  } catch {
    return;
  }
  for (const name of names) if (name.includes(mark)) rmSync(join(dir, name), { force: true });
}

const PROBLEMS: Record<string, string> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "read-only file system",
  ENOTDIR: "a component of the path is not a directory",
  EISDIR: "is a directory",
  ENOENT: "no such file or directory",
  EIO: "input/output error",
};

/** `err` as a system error's code, if it has one. */
export function errorCode(err: unknown): string | undefined {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === "string" ? (err as NodeJS.ErrnoException).code : undefined;
}

/** A system error as the user reads it: `no space left on the device (ENOSPC)`. */
export function describeSystemError(err: unknown): string {
  const code = errorCode(err);
  if (code === undefined) return err instanceof Error ? err.message : String(err);
  return PROBLEMS[code] !== undefined ? `${PROBLEMS[code]} (${code})` : code;
}

/** Codes of a device that takes no more data: whatever the file, writing it cannot succeed. */
const CANNOT_WRITE = new Set(["ENOSPC", "EDQUOT", "EROFS"]);

/**
 * A system error that reached the top (or a worker thread's edge) without a writer naming it,
 * as the user reads it: `path: cannot write (…)` for a full or read-only device, `path:
 * problem` for another error naming its path; null for what is no system error (an internal
 * error). A write through an open descriptor names no path: the device's state is still the cause.
 */
export function systemErrorForUser(err: unknown): VertdupError | null {
  if (err instanceof VertdupError) return err;
  const code = errorCode(err);
  if (code === undefined) return null;
  const path = (err as NodeJS.ErrnoException).path;
  if (CANNOT_WRITE.has(code)) return new VertdupError(`${path === undefined ? "" : `${path}: `}cannot write (${describeSystemError(err)})`);
  return path === undefined ? null : new VertdupError(`${path}: ${describeSystemError(err)}`);
}

/** `path: cannot write (problem)`; a VertdupError passes through unchanged. */
export function writeError(path: string, err: unknown): Error {
  if (err instanceof VertdupError) return err;
  if (errorCode(err) === undefined && !(err instanceof ShortWrite)) return err instanceof Error ? err : new Error(String(err));
  return new VertdupError(`${path}: cannot write (${describeSystemError(err)})`);
}

class ShortWrite extends Error {
  constructor(expected: number, written: number) {
    super(`${written} of ${expected} bytes written`);
  }
}

/**
 * Writes all of `data` to the open descriptor `fd` of `path` (at `position`, or where the file
 * stands): a partial write is continued, and a failure names the path, which an error of a
 * descriptor does not.
 */
export function writeFullySync(fd: number, path: string, data: ArrayBufferView, position?: number): void {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  try {
    for (let done = 0; done < bytes.length; ) {
      const written = writeSync(fd, bytes, done, bytes.length - done, position === undefined ? null : position + done);
      if (written === 0) throw new ShortWrite(bytes.length, done);
      done += written;
    }
  } catch (err) {
    throw writeError(path, err);
  }
}

function asBytes(data: string | Uint8Array): Uint8Array {
  return typeof data === "string" ? Buffer.from(data, "utf8") : data;
}

/**
 * Makes the renames in `dir` durable (also those `writeAtomic` left without it, `durableName`
 * false); file systems that cannot fsync a directory are let be.
 */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch (err) {
    if (!["EINVAL", "ENOTSUP", "EISDIR", "EBADF", "EPERM"].includes(errorCode(err) ?? "")) throw err;
  } finally {
    await handle?.close();
  }
}

/** Fsyncs a written file and checks that it holds all `expected` bytes. */
async function syncAndCheck(handle: FileHandle, expected: number): Promise<void> {
  await handle.sync();
  const { size } = await handle.stat();
  if (size !== expected) throw new ShortWrite(expected, size);
}

/** `syncAndCheck` for a file its writer has closed (a stream): fsync through a new descriptor. */
async function syncAndCheckClosed(tmp: string, expected: number): Promise<void> {
  const handle = await open(tmp, "r");
  try {
    await syncAndCheck(handle, expected);
  } finally {
    await handle.close();
  }
}

/** Removes a temporary file; one that could not even be created (ENOTDIR, EACCES) is no error. */
async function discardTemporary(tmp: string): Promise<void> {
  await rm(tmp, { force: true }).catch(() => undefined);
  pending.delete(tmp);
}

async function putInPlace(tmp: string, path: string, durableName: boolean): Promise<void> {
  await rename(tmp, path);
  pending.delete(tmp);
  if (durableName) await syncDirectory(dirname(path));
}

/**
 * Writes a whole file: every byte written and checked, fsynced, renamed into place.
 * `durableName` false leaves out the directory fsync: the file is whole under its name or
 * absent after a crash, until `syncDirectory` of its directory (a task marker: a lost one only
 * reruns its task; the step makes its markers durable together at its end).
 */
export async function writeAtomic(path: string, data: string | Uint8Array, durableName = true): Promise<void> {
  const bytes = asBytes(data);
  const tmp = temporaryName(path);
  track(tmp);
  try {
    const handle = await open(tmp, "wx");
    try {
      for (let done = 0; done < bytes.length; ) {
        const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
        if (bytesWritten === 0) throw new ShortWrite(bytes.length, done);
        done += bytesWritten;
      }
      await syncAndCheck(handle, bytes.length);
    } finally {
      await handle.close();
    }
    await putInPlace(tmp, path, durableName);
  } catch (err) {
    await discardTemporary(tmp);
    throw writeError(path, err);
  }
}

/** `syncDirectory`, blocking. */
function syncDirectorySync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch (err) {
    if (!["EINVAL", "ENOTSUP", "EISDIR", "EBADF", "EPERM"].includes(errorCode(err) ?? "")) throw err;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A whole file (its bytes, or parts written one after another) written blocking, checked, renamed into place; fsynced (with its directory) if `durable`. */
function writeWholeSync(path: string, data: Uint8Array | readonly Uint8Array[], durable: boolean): void {
  const tmp = temporaryName(path);
  const parts = data instanceof Uint8Array ? [data] : data;
  const total = parts.reduce((n, part) => n + part.length, 0);
  track(tmp);
  try {
    const fd = openSync(tmp, "wx");
    try {
      // Named by the final path: the temporary one means nothing to the user.
      for (const part of parts) writeFullySync(fd, path, part);
      if (durable) fsyncSync(fd);
      const { size } = fstatSync(fd);
      if (size !== total) throw new ShortWrite(total, size);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    pending.delete(tmp);
    if (durable) syncDirectorySync(dirname(path));
  } catch (err) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // Never created.
    }
    pending.delete(tmp);
    throw writeError(path, err);
  }
}

/**
 * A file written blocking, piece by piece, under a temporary name: `commit` checks that it
 * holds every byte written, fsyncs and renames it (and its directory), `abort` removes it.
 * For a writer whose output is too large to hold and whose producer is a synchronous loop
 * (the vocabulary merge's terms of df = 1).
 */
export interface AtomicFileSync {
  write(bytes: Uint8Array): void;
  /** Bytes written so far: the offset of the next write. */
  readonly size: number;
  commit(): void;
  abort(): void;
}

export function openAtomicSync(path: string): AtomicFileSync {
  const tmp = temporaryName(path);
  track(tmp);
  let fd: number | undefined;
  let size = 0;
  const discard = () => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
    try {
      rmSync(tmp, { force: true });
    } catch {
      // Never created.
    }
    pending.delete(tmp);
  };
  const failed = (err: unknown) => {
    discard();
    return writeError(path, err);
  };
  try {
    fd = openSync(tmp, "wx");
  } catch (err) {
    throw failed(err);
  }
  const open = fd;
  return {
    get size() {
      return size;
    },
    write(bytes) {
      try {
        writeFullySync(open, path, bytes);
        size += bytes.length;
      } catch (err) {
        throw failed(err);
      }
    },
    commit() {
      try {
        fsyncSync(open);
        const actual = fstatSync(open).size;
        if (actual !== size) throw new ShortWrite(size, actual);
        closeSync(open);
        fd = undefined;
        renameSync(tmp, path);
        pending.delete(tmp);
        syncDirectorySync(dirname(path));
      } catch (err) {
        throw failed(err);
      }
    },
    abort: discard,
  };
}

/**
 * Makes `to` the file `from` without writing its bytes again: a hard link (files here are
 * written atomically, by rename, so `from`'s inode never changes after), or a copy synced to
 * disk where the two are on different file systems or links are not allowed.
 */
export async function linkOrCopy(from: string, to: string): Promise<void> {
  await rm(to, { force: true });
  try {
    await link(from, to);
  } catch (err) {
    if (errorCode(err) !== "EXDEV" && errorCode(err) !== "EPERM") throw err;
    await copyFile(from, to);
    const handle = await open(to, "r+");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

/**
 * `writeAtomic` without fsync, blocking: for a worker's scratch files, which no marker
 * vouches for and where awaiting the write would leave the thread idle (a Piscina worker
 * takes no other task meanwhile). Every byte is still written and checked before the rename.
 */
export function writeScratchSync(path: string, data: Uint8Array): void {
  writeWholeSync(path, data, false);
}

/** A file of a group written together (`writeAtomicGroup`): its bytes, possibly in parts written one after another. */
export interface GroupFile {
  path: string;
  data: Uint8Array | readonly Uint8Array[];
}

/** fsync as a promise: the group's files are synced at once, so that they share the file system's journal commits. */
function fsyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
}

/**
 * Several whole files (a task's outputs) with one durable point: each written blocking under
 * a temporary name (no thread hop per write: for a worker thread, which awaits the group
 * anyway), all fsynced at once, then renamed, and each directory fsynced once after the
 * renames (not once per file). A marker written after this resolves cannot outlive the files.
 * On failure the group's temporaries are removed; a file already renamed may stay, and no
 * marker vouches for it. `durable` false leaves the fsyncs out: the files are whole under
 * their names or absent if the process dies, but a power cut may leave one short under its
 * name, so only a marker written after `syncFiles` may vouch for them (a task without one reruns).
 */
export async function writeAtomicGroup(files: readonly GroupFile[], durable = true): Promise<void> {
  const open: { file: GroupFile; tmp: string; fd?: number; size: number }[] = files.map((file) => ({ file, tmp: temporaryName(file.path), size: 0 }));
  let current = files[0]?.path;
  try {
    for (const f of open) {
      current = f.file.path;
      track(f.tmp);
      f.fd = openSync(f.tmp, "wx");
      for (const part of f.file.data instanceof Uint8Array ? [f.file.data] : f.file.data) {
        writeFullySync(f.fd, f.file.path, part);
        f.size += part.length;
      }
    }
    await Promise.all(
      open.map(async (f) => {
        if (!durable) return;
        try {
          await fsyncFd(f.fd!);
        } catch (err) {
          current = f.file.path;
          throw err;
        }
      }),
    );
    for (const f of open) {
      current = f.file.path;
      const actual = fstatSync(f.fd!).size;
      if (actual !== f.size) throw new ShortWrite(f.size, actual);
      closeSync(f.fd!);
      f.fd = undefined;
    }
    for (const f of open) {
      current = f.file.path;
      renameSync(f.tmp, f.file.path);
      pending.delete(f.tmp);
    }
    for (const dir of durable ? new Set(files.map((f) => dirname(f.path))) : []) {
      current = dir;
      await syncDirectory(dir);
    }
  } catch (err) {
    for (const f of open) {
      if (f.fd !== undefined) closeSync(f.fd);
      if (pending.has(f.tmp)) {
        try {
          rmSync(f.tmp, { force: true });
        } catch {
          // Never created.
        }
        pending.delete(f.tmp);
      }
    }
    throw writeError(current ?? "", err);
  }
}

/**
 * Makes files in place durable: their data fsynced (all at once, through descriptors of their
 * own: fsync flushes the file, whoever wrote it), then each directory once, for their names.
 * For files written by `writeAtomicGroup` with `durable` false, before a marker vouches for them.
 */
export async function syncFiles(paths: readonly string[]): Promise<void> {
  await Promise.all(
    paths.map(async (path) => {
      try {
        const handle = await open(path, "r");
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      } catch (err) {
        throw writeError(path, err);
      }
    }),
  );
  for (const dir of new Set(paths.map((p) => dirname(p)))) await syncDirectory(dir);
}

/** `writeAtomic`, blocking: for a worker's file that a task's marker vouches for. */
export function writeAtomicSync(path: string, data: Uint8Array | readonly Uint8Array[]): void {
  writeWholeSync(path, data, true);
}

/**
 * Resolves once `stream` can take more (its `drain`); rejects if it fails or is destroyed
 * first, where a bare `once("drain")` would wait for ever.
 */
export function drained(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    if (stream.destroyed) {
      reject(stream.errored ?? new Error("stream destroyed before it drained"));
      return;
    }
    const off = () => {
      stream.off("drain", onDrain);
      stream.off("error", onError);
      stream.off("close", onClose);
    };
    const onDrain = () => (off(), resolve());
    const onError = (err: Error) => (off(), reject(err));
    const onClose = () => (off(), reject(stream.errored ?? new Error("stream closed before it drained")));
    stream.on("drain", onDrain);
    stream.on("error", onError);
    stream.on("close", onClose);
  });
}

/**
 * A file written as a stream under a temporary name; `commit` checks, fsyncs and renames it
 * into place, `abort` removes it. A crash in between leaves only the temporary name behind
 * (and an exit of this process removes that too).
 */
export interface AtomicStream {
  stream: WriteStream;
  /** Writes `chunk`, resolving when the stream can take more (back-pressure); rejects on failure. */
  write(chunk: Uint8Array | string): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * A file written by positional writes through its handle, under a temporary name;
 * `commit(size)` checks that it holds `size` bytes, fsyncs and renames it into place.
 */
export interface AtomicHandle {
  handle: FileHandle;
  commit(size: number): Promise<void>;
  abort(): Promise<void>;
}

export async function openAtomicHandle(path: string): Promise<AtomicHandle> {
  const tmp = temporaryName(path);
  track(tmp);
  let handle: FileHandle;
  try {
    handle = await open(tmp, "wx");
  } catch (err) {
    pending.delete(tmp);
    throw writeError(path, err);
  }
  const discard = async () => {
    await handle.close().catch(() => undefined);
    await discardTemporary(tmp);
  };
  return {
    handle,
    async commit(size) {
      try {
        await syncAndCheck(handle, size);
        await handle.close();
        await putInPlace(tmp, path, true);
      } catch (err) {
        await discard();
        throw writeError(path, err);
      }
    },
    abort: discard,
  };
}

export function openAtomic(path: string): AtomicStream {
  const tmp = temporaryName(path);
  track(tmp);
  const stream = createWriteStream(tmp, { flags: "wx" });
  const finished = new Promise<void>((resolve, reject) => {
    stream.on("close", () => (stream.errored ? reject(stream.errored) : resolve()));
    stream.on("error", reject);
  });
  finished.catch(() => undefined);
  const discard = async () => {
    stream.destroy();
    await finished.catch(() => undefined);
    await discardTemporary(tmp);
  };
  return {
    stream,
    async write(chunk) {
      if (stream.errored) throw writeError(path, stream.errored);
      if (!stream.write(chunk)) await drained(stream).catch((err: unknown) => Promise.reject(writeError(path, err)));
    },
    async commit() {
      try {
        stream.end();
        await finished;
        await syncAndCheckClosed(tmp, stream.bytesWritten);
        await putInPlace(tmp, path, true);
      } catch (err) {
        await discard();
        throw writeError(path, err);
      }
    },
    abort: discard,
  };
}
