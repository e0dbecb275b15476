import { createReadStream, constants as fsConstants } from "node:fs";
import { access } from "node:fs/promises";
import { createGunzip } from "node:zlib";
import type { Readable } from "node:stream";
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
  const raw: Readable =
    path === "-" ? process.stdin : createReadStream(path, { highWaterMark });
  const kind = compressionOf(path);
  if (kind === "none") return raw;
  const decoder = kind === "gzip" ? createGunzip({ chunkSize: 1 << 18 }) : new DecompressStream();
  raw.on("error", (err) => decoder.destroy(err));
  return raw.pipe(decoder);
}

/** Explains a decompression failure in the user's terms. */
export function describeStreamError(path: string, err: unknown): VertdupError {
  const what = err instanceof Error ? err.message : String(err);
  const kind = compressionOf(path);
  const hint =
    kind === "none" ? "read error" : `${kind} stream is truncated or corrupt`;
  return new VertdupError(`${displayName(path)}: ${hint} (${what})`);
}
