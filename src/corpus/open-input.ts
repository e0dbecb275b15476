import { createReadStream, constants as fsConstants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { createGunzip, createGzip } from "node:zlib";
import { PassThrough, Readable, type Transform } from "node:stream";
import type * as zstdNapi from "zstd-napi";
import type zstdBinding from "zstd-napi/binding.js";
import { VertdupError } from "../core/errors.js";
import { requireCjs } from "../util/require-cjs.js";

/** How a corpus file is compressed, told by its name (`-` is standard input, plain). */
export type Compression = "none" | "gzip" | "zstd";

export function compressionOf(path: string): Compression {
  if (path.endsWith(".gz")) return "gzip";
  if (path.endsWith(".zst") || path.endsWith(".zstd")) return "zstd";
  return "none";
}

/**
 * What a file named `path` is written through: gzip (level 6) or zstd (`zstdLevel`, 3 is
 * zstd's default) as its name says, or null for a plain file. The one choice of compressor
 * for every output.
 */
export function compressorFor(path: string, zstdLevel = 3): Transform | null {
  const kind = compressionOf(path);
  if (kind === "gzip") return createGzip({ level: 6 });
  if (kind === "zstd") return new (requireCjs("zstd-napi") as typeof zstdNapi).CompressStream({ compressionLevel: zstdLevel });
  return null;
}

/** Name used in messages for an input path. */
export function displayName(path: string): string {
  return path === "-" ? "<stdin>" : path;
}

/** Fails early, with the file's name, when an input is missing, unreadable or a directory. */
export async function checkReadable(path: string): Promise<void> {
  if (path === "-") return;
  try {
    await access(path, fsConstants.R_OK);
  } catch {
    throw new VertdupError(`${path}: cannot read input file (missing or no permission)`);
  }
  if ((await stat(path)).isDirectory()) throw new VertdupError(`${path}: is a directory, not a corpus file`);
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
  if (kind === "zstd") return Readable.from(zstdPieces(raw), { objectMode: false, highWaterMark: ZSTD_OUT });
  const decoder = createGunzip({ chunkSize: 1 << 18 });
  raw.on("error", (err) => decoder.destroy(err));
  return raw.pipe(decoder);
}

const ZSTD_OUT = 1 << 18;

/**
 * The decompressed bytes of a zstd stream, one output buffer at a time, made only when the
 * reader asks for more. zstd-napi's DecompressStream decompresses a whole input piece at
 * once whatever the reader's pace: a small piece of a highly compressed file (a
 * decompression bomb) filled gigabytes of memory.
 */
async function* zstdPieces(raw: Readable): AsyncGenerator<Buffer> {
  const zstd = requireCjs("zstd-napi/binding.js") as typeof zstdBinding;
  const dctx = new zstd.DCtx();
  let inFrame = false;
  for await (const input of raw as AsyncIterable<Buffer>) {
    let src = input;
    for (;;) {
      const dst = Buffer.allocUnsafe(ZSTD_OUT);
      const [left, produced, consumed] = dctx.decompressStream(dst, src);
      src = src.subarray(consumed);
      if (produced > 0) yield dst.subarray(0, produced);
      if (src.length === 0 && (produced < dst.length || left === 0)) {
        inFrame = left !== 0;
        break;
      }
    }
  }
  if (inFrame) throw new Error("stream ended in the middle of a compressed frame");
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

/**
 * Inputs of less text than this run in this thread: starting the worker pool (threads that
 * each load the modules) costs more than the workers save. Measured in docs/PERFORMANCE.md.
 */
export const IN_PROCESS_BELOW = 16 * 1024 ** 2;
/** A compressed input counts as this many times its size (gzip of vertical text: about 4×). */
const COMPRESSED_TEXT_GUESS = 4;

/** Whether the inputs hold less text than IN_PROCESS_BELOW (standard input and pipes: unknown, so no). */
export async function smallInputs(inputs: readonly string[]): Promise<boolean> {
  let text = 0;
  for (const input of inputs) {
    if (input === "-") return false;
    const s = await stat(input);
    if (!s.isFile()) return false;
    text += compressionOf(input) === "none" ? s.size : s.size * COMPRESSED_TEXT_GUESS;
  }
  return text < IN_PROCESS_BELOW;
}
