import { closeSync, openSync, readSync } from "node:fs";
import { chunkCorpus } from "../corpus/chunker.js";
import { displayName } from "../corpus/open-input.js";
import { VertdupError } from "../util/errors.js";
import type { InputPlaces } from "./input-places.js";
import type { Stored } from "./stored.js";

/** A chunk of the paragraph pass: whole documents of one input, in corpus order. */
export interface CorpusChunk {
  index: number;
  file: string;
  /** True for the first chunk of its file (which alone may start with a byte-order mark). */
  fileStart: boolean;
  /** A plain file's byte range (read by the worker), or bytes that cannot be read again. */
  bytes: Stored;
}

const WINDOW = 64 << 10;
const DOC_OPEN = Buffer.from("\n<doc");

/** A `<doc` line start at `i` (as the core chunker cuts: then a space, tab, `>` or CR). */
function isDocStart(buf: Buffer, i: number): boolean {
  const c = buf[i + 4];
  return c === 0x20 || c === 0x09 || c === 0x3e || c === 0x0d;
}

/**
 * Byte ranges of a plain file, cut as the core chunker cuts (before the first `<doc` line
 * that starts at or after `targetBytes`), found by reading small windows: the coordinator
 * never reads the corpus itself, the workers read their ranges.
 */
function* fileRanges(path: string, size: number, targetBytes: number): Generator<{ offset: number; length: number }> {
  const fd = openSync(path, "r");
  const buf = Buffer.allocUnsafe(WINDOW);
  try {
    let start = 0;
    while (start < size) {
      let cut = size;
      for (let from = start + targetBytes - 1; from < size; from += WINDOW - DOC_OPEN.length) {
        const got = readSync(fd, buf, 0, WINDOW, from);
        const seen = buf.subarray(0, got);
        let i = seen.indexOf(DOC_OPEN);
        while (i !== -1 && i + DOC_OPEN.length < got && !isDocStart(seen, i + 1)) i = seen.indexOf(DOC_OPEN, i + 1);
        if (i !== -1 && i + DOC_OPEN.length < got) {
          cut = from + i + 1;
          break;
        }
        if (from + got >= size) break;
      }
      yield { offset: start, length: cut - start };
      start = cut;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The chunks of the corpus: plain regular files as byte ranges, other inputs (compressed,
 * standard input, pipes) through the core chunker, their bytes in a buffer of their own.
 */
export async function* corpusChunks(inputs: readonly string[], places: InputPlaces, targetBytes: number): AsyncGenerator<CorpusChunk> {
  let index = 0;
  for (const path of inputs) {
    const size = places.size(path);
    if (size !== null) {
      if (size === 0) throw new VertdupError(`${displayName(path)}: input is empty`);
      for (const { offset, length } of fileRanges(path, size, targetBytes)) {
        yield { index: index++, file: path, fileStart: offset === 0, bytes: { path, offset, length } };
      }
      continue;
    }
    for await (const chunk of chunkCorpus([path], targetBytes)) {
      const bytes = new Uint8Array(chunk.bytes.length);
      bytes.set(chunk.bytes);
      yield { index: index++, file: path, fileStart: chunk.firstLine === 1, bytes };
    }
  }
}
