import { pipeline } from "node:stream/promises";
import type { Writable } from "node:stream";
import { compressorFor } from "../corpus/open-input.js";
import { drained, openAtomic } from "../util/atomic.js";

/** Buffered text is written in pieces of about this many characters. */
const PIECE = 1 << 16;

/**
 * Writes `header`, then line(0) … line(count − 1) (each with its own "\n"), under a
 * temporary name renamed into place when complete: the one writer of vertdup's TSV files.
 * gzip / zstd when the name ends in `.gz` / `.zst`, plain otherwise.
 */
export async function writeLineFile(path: string, header: string, count: number, line: (k: number) => string): Promise<void> {
  await writeLines(path, header, indexed(count, line));
}

function* indexed(count: number, line: (k: number) => string): Generator<string> {
  for (let k = 0; k < count; k++) yield line(k);
}

/** `writeLineFile` for lines made in order by a generator (each with its own "\n"). */
export async function writeLines(path: string, header: string, lines: Iterable<string>): Promise<void> {
  const file = openAtomic(path);
  const zip = compressorFor(path);
  const sink: Writable = zip ?? file.stream;
  const piped = zip === null ? null : pipeline(zip, file.stream, { end: false });
  try {
    let buffer = header;
    for (const line of lines) {
      buffer += line;
      if (buffer.length > PIECE) {
        if (!sink.write(buffer)) await drained(sink);
        buffer = "";
      }
    }
    sink.end(buffer);
    if (piped !== null) await piped;
    await file.commit();
  } catch (err) {
    await file.abort();
    throw err;
  }
}
