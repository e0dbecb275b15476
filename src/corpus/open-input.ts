import { createReadStream, constants as fsConstants } from "node:fs";
import { access } from "node:fs/promises";
import { createGunzip } from "node:zlib";
import { PassThrough, type Readable } from "node:stream";
import { DecompressStream } from "zstd-napi";
import { VertdupError } from "../util/errors.js";

/** How a corpus file is compressed, told by its name (`-` is standard input, plain). */
export type Compression = "none" | "gzip" | "zstd";

export function compressionOf(path: string): Compression {
  if (path.endsWith(".gz")) return "gzip";
  if (path.endsWith(".zst") || path.endsWith(".zstd")) return "zstd";
  return "none";
}

/** Name used in messages for an input path. */
export function displayName(path: string): string {
  return path === "-" ? "<stdin>" : path;
}

/** Fails early, with the file's name, when an input is missing or unreadable. */
export async function checkReadable(path: string): Promise<void> {
  if (path === "-") return;
  try {
    await access(path, fsConstants.R_OK);
  } catch {
    throw new VertdupError(`${path}: cannot read input file (missing or no permission)`);
  }
}

/**
 * Opens an input as a stream of decompressed bytes. Decompression errors (a truncated or
 * corrupt .gz/.zst) surface as stream errors and are reported by the reader with the file name.
 */
export function openInput(path: string, highWaterMark = 1 << 20): Readable {
  if (path === "-") return sniffAndDecompress(process.stdin);
  return decompressed(createReadStream(path, { highWaterMark }), compressionOf(path));
}

function decompressed(raw: Readable, kind: Compression): Readable {
  if (kind === "none") return raw;
  const decoder = kind === "gzip" ? createGunzip({ chunkSize: 1 << 18 }) : new DecompressStream();
  raw.on("error", (err) => decoder.destroy(err));
  return raw.pipe(decoder);
}

/** Compression told by the first bytes: gzip 1f 8b, zstd frame 28 b5 2f fd. */
export function compressionOfBytes(head: Uint8Array): Compression {
  if (head[0] === 0x1f && head[1] === 0x8b) return "gzip";
  if (head[0] === 0x28 && head[1] === 0xb5 && head[2] === 0x2f && head[3] === 0xfd) return "zstd";
  return "none";
}

/** Standard input has no name to go by: its first bytes tell whether it is compressed. */
function sniffAndDecompress(raw: Readable): Readable {
  const out = new PassThrough();
  let started = false;
  raw.once("error", (err) => out.destroy(err));
  raw.once("end", () => {
    if (!started) out.end();
  });
  raw.once("data", (first: Buffer) => {
    started = true;
    raw.pause();
    const head = new PassThrough();
    head.write(first);
    raw.pipe(head);
    const body = decompressed(head, compressionOfBytes(first));
    body.on("error", (err) => out.destroy(err));
    body.pipe(out);
    raw.resume();
  });
  return out;
}

/** Explains a decompression failure in the user's terms. */
export function describeStreamError(path: string, err: unknown): VertdupError {
  const what = err instanceof Error ? err.message : String(err);
  const kind = compressionOf(path);
  const hint =
    kind === "none" ? "read error" : `${kind} stream is truncated or corrupt`;
  return new VertdupError(`${displayName(path)}: ${hint} (${what})`);
}
