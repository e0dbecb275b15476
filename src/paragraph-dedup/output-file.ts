import { createGzip } from "node:zlib";
import type { Writable } from "node:stream";
import { CompressStream } from "zstd-napi";
import { compressionOf } from "../corpus/open-input.js";
import { openAtomic } from "../util/atomic.js";
import { VertdupError } from "../util/errors.js";

/** An output written in order, compressed by its name, put in place only by `commit`. */
export interface OutputFile {
  write(bytes: Uint8Array): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

function waitDrain(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      stream.off("error", fail);
      resolve();
    };
    const fail = (err: Error) => {
      stream.off("drain", done);
      reject(err);
    };
    stream.once("drain", done);
    stream.once("error", fail);
  });
}

/**
 * Opens `path` (`.gz` → gzip, `.zst`/`.zstd` → zstd, else plain) under a temporary name;
 * `-` is standard output, written as it comes.
 */
export function openOutput(path: string): OutputFile {
  if (path === "-") {
    return {
      write: async (bytes) => {
        if (!process.stdout.write(bytes)) await waitDrain(process.stdout);
      },
      commit: async () => undefined,
      abort: async () => undefined,
    };
  }
  const target = openAtomic(path);
  let failure: Error | null = null;
  target.stream.on("error", (err) => (failure ??= err));
  const kind = compressionOf(path);
  const head: Writable = kind === "none" ? target.stream : kind === "gzip" ? createGzip({ level: 6 }) : new CompressStream();
  if (head !== target.stream) {
    head.on("error", (err) => (failure ??= err));
    head.pipe(target.stream, { end: false });
  }
  const check = () => {
    if (failure !== null) throw new VertdupError(`${path}: cannot write output (${failure.message})`);
  };
  return {
    async write(bytes) {
      check();
      if (!head.write(bytes)) await waitDrain(head);
      check();
    },
    async commit() {
      check();
      if (head !== target.stream) {
        const flushed = new Promise<void>((resolve, reject) => {
          head.once("end", resolve);
          head.once("error", reject);
        });
        head.end();
        await flushed;
      }
      check();
      await target.commit();
    },
    abort: () => target.abort(),
  };
}
