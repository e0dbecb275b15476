import { createWriteStream, type WriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import writeFileAtomic from "write-file-atomic";

/** Writes a whole file under a temporary name, fsyncs it and renames it into place. */
export async function writeAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await writeFileAtomic(path, asBuffer(data));
}

/**
 * `writeAtomic` without fsync, blocking: for a worker's scratch files, where awaiting the
 * write would leave the thread idle (a Piscina worker takes no other task meanwhile).
 */
export function writeScratchSync(path: string, data: Uint8Array): void {
  writeFileAtomic.sync(path, asBuffer(data), { fsync: false });
}

function asBuffer(data: string | Uint8Array): string | Buffer {
  return typeof data === "string" ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * A file written as a stream under a temporary name; `commit` renames it into place,
 * `abort` removes it. A crash in between leaves only the temporary name behind.
 */
export interface AtomicStream {
  stream: WriteStream;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export function temporaryName(path: string): string {
  return `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
}

export function openAtomic(path: string): AtomicStream {
  const tmp = temporaryName(path);
  const stream = createWriteStream(tmp);
  const finished = new Promise<void>((resolve, reject) => {
    stream.on("close", resolve);
    stream.on("error", reject);
  });
  return {
    stream,
    async commit() {
      stream.end();
      await finished;
      await rename(tmp, path);
    },
    async abort() {
      stream.destroy();
      await finished.catch(() => undefined);
      await rm(tmp, { force: true });
    },
  };
}
