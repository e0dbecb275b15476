import type { Writable } from "node:stream";
import { compressorFor } from "../corpus/open-input.js";
import { drained, openAtomic, openAtomicHandle, writeError } from "../util/atomic.js";

/**
 * An output written in order (a cleaned or deduplicated corpus, a work directory's part),
 * compressed by its name, put in place only by `commit`.
 */
export interface OutputFile {
  /** Queues the bytes; `released` is called once they are written and may be reused. */
  write(bytes: Uint8Array, released?: () => void): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** Writes at a time to a plain file: the kernel's copies into the page cache run side by side. */
const PLAIN_WRITES = 4;

/**
 * A plain file written by positional writes, several in flight: the order of `write` calls
 * fixes the offsets, so the file is the same as a sequential write's.
 */
async function openPlain(path: string): Promise<OutputFile> {
  const target = await openAtomicHandle(path);
  const file = target.handle;
  let offset = 0;
  let failure: Error | null = null;
  const inFlight = new Set<Promise<void>>();
  const writeAll = async (bytes: Uint8Array, at: number) => {
    for (let done = 0; done < bytes.length; ) done += (await file.write(bytes, done, bytes.length - done, at + done)).bytesWritten;
  };
  const check = () => {
    if (failure !== null) throw writeError(path, failure);
  };
  const settle = () => Promise.all(inFlight);
  return {
    async write(bytes, released) {
      check();
      const p: Promise<void> = writeAll(bytes, offset)
        .then(released, (err: Error) => void (failure ??= err))
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
      offset += bytes.length;
      if (inFlight.size >= PLAIN_WRITES) await Promise.race(inFlight);
    },
    async commit() {
      await settle();
      check();
      await target.commit(offset);
    },
    async abort() {
      await settle();
      await target.abort();
    },
  };
}

/**
 * Opens `path` (`.gz` → gzip, `.zst`/`.zstd` → zstd at `zstdLevel`, else plain) under a
 * temporary name; `-` is standard output, written as it comes.
 */
export async function openOutput(path: string, zstdLevel?: number): Promise<OutputFile> {
  if (path === "-") {
    return {
      write: async (bytes, released) => {
        if (!process.stdout.write(bytes, () => released?.())) await drained(process.stdout);
      },
      commit: async () => undefined,
      abort: async () => undefined,
    };
  }
  const head: Writable | null = compressorFor(path, zstdLevel);
  if (head === null) return openPlain(path);
  const target = openAtomic(path);
  let failure: Error | null = null;
  // The compressor waits for a reader that is gone: failing it ends a write waiting for room and `commit`.
  target.stream.on("error", (err) => {
    failure ??= err;
    head.destroy(err);
  });
  head.on("error", (err) => (failure ??= err));
  head.pipe(target.stream, { end: false });
  const check = () => {
    if (failure !== null) throw writeError(path, failure);
  };
  return {
    async write(bytes, released) {
      check();
      if (!head.write(bytes, () => released?.())) await drained(head).catch((err: unknown) => Promise.reject(writeError(path, err)));
      check();
    },
    async commit() {
      check();
      const flushed = new Promise<void>((resolve, reject) => {
        head.once("end", resolve);
        head.once("error", reject);
      });
      head.end();
      await flushed.catch((err: unknown) => Promise.reject(writeError(path, err)));
      check();
      await target.commit();
    },
    abort: () => target.abort(),
  };
}

/** Opens `path`, runs `body`, which writes into it, then commits it, or aborts it if `body` fails. */
export async function fillOutput<T>(path: string, body: (output: OutputFile) => Promise<T>, zstdLevel?: number): Promise<T> {
  const output = await openOutput(path, zstdLevel);
  try {
    const result = await body(output);
    await output.commit();
    return result;
  } catch (err) {
    await output.abort();
    throw err;
  }
}
