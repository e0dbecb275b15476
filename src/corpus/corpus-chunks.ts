import { closeSync, openSync, readSync } from "node:fs";
import { chunkCorpus, chunkExtent, HeadCheck, tooLong, type ReadLimits } from "./chunker.js";
import { displayName } from "./open-input.js";
import { countByte } from "../util/count-byte.js";
import { VertdupError } from "../util/errors.js";
import type { InputPlaces } from "./input-places.js";
import { loadStored, type Stored } from "./stored.js";

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
const NL = 0x0a;
const DOC_OPEN = Buffer.from("\n<doc");

/** A `<doc` line start at `i` (as the core chunker cuts: then a space, tab, `>` or CR). */
function isDocStart(buf: Buffer, i: number): boolean {
  const c = buf[i + 4];
  return c === 0x20 || c === 0x09 || c === 0x3e || c === 0x0d;
}

/** The first `\n<doc` line start in `seen` whose next byte is in `seen` too, or -1. */
function docStartIn(seen: Buffer): number {
  let i = seen.indexOf(DOC_OPEN);
  while (i !== -1 && i + DOC_OPEN.length < seen.length && !isDocStart(seen, i + 1)) i = seen.indexOf(DOC_OPEN, i + 1);
  return i !== -1 && i + DOC_OPEN.length < seen.length ? i : -1;
}

/** Line number of the byte at file offset `at`. */
function lineAt(fd: number, buf: Buffer, at: number): number {
  let line = 1;
  for (let from = 0; from < at; from += WINDOW) line += countByte(buf, NL, 0, readSync(fd, buf, 0, Math.min(WINDOW, at - from), from));
  return line;
}

/** Document starts s with from < s < to, read through `buf` in windows. */
function* docStartsBetween(fd: number, buf: Buffer, from0: number, to: number): Generator<number> {
  for (let from = from0; from < to; from += WINDOW - DOC_OPEN.length) {
    const seen = buf.subarray(0, readSync(fd, buf, 0, Math.min(WINDOW, to - from + DOC_OPEN.length), from));
    // Windows overlap by the pattern's length: a line start is looked at in one window only.
    const fresh = Math.min(seen.length, WINDOW - DOC_OPEN.length, to - from);
    for (let i = seen.indexOf(DOC_OPEN); i !== -1 && i < fresh; i = seen.indexOf(DOC_OPEN, i + 1)) {
      const at = from + i + 1;
      if (at > from0 && at < to && i + DOC_OPEN.length < seen.length && isDocStart(seen, i + 1)) yield at;
    }
    if (seen.length < WINDOW) return;
  }
}

/**
 * Fails when a document of the range [start, cut) spans more than `maxDocBytes` (only a
 * range longer than that, made by a long document or a large chunk size, can hold one).
 */
function checkRange(fd: number, buf: Buffer, path: string, start: number, cut: number, maxDocBytes: number): void {
  if (cut - start <= maxDocBytes) return;
  let docStart = start;
  let end = cut;
  for (const at of docStartsBetween(fd, buf, start, cut)) {
    if (at - docStart > maxDocBytes) {
      end = at;
      break;
    }
    docStart = at;
  }
  if (end - docStart > maxDocBytes) throw tooLong(displayName(path), lineAt(fd, buf, docStart), maxDocBytes);
}

/**
 * Byte ranges of a plain file, cut as the core chunker cuts (before the first `<doc` line
 * that starts at or after `targetBytes`), found by reading small windows: the coordinator
 * never reads the corpus itself, the workers read their ranges. Its first lines are checked
 * as the core chunker checks them, and a document that spans more than `maxDocBytes` past a
 * range's target size stops the reading (a range holds at most targetBytes + maxDocBytes).
 */
export function* fileRanges(path: string, size: number, targetBytes: number, limits: ReadLimits): Generator<{ offset: number; length: number }> {
  const fd = openSync(path, "r");
  const buf = Buffer.allocUnsafe(WINDOW);
  try {
    const head = new HeadCheck(displayName(path), limits.docTag);
    for (let from = 0; !head.done && from < Math.min(size, limits.maxDocBytes); from += WINDOW) {
      head.feed(Buffer.from(buf.subarray(0, readSync(fd, buf, 0, WINDOW, from))));
    }
    let start = 0;
    while (start < size) {
      let cut = size;
      const target = start + targetBytes - 1;
      for (let from = target; from < size; from += WINDOW - DOC_OPEN.length) {
        const got = readSync(fd, buf, 0, WINDOW, from);
        const i = docStartIn(buf.subarray(0, got));
        if (i !== -1) {
          cut = from + i + 1;
          break;
        }
        if (from + got - target > limits.maxDocBytes) {
          let docStart = start;
          for (const at of docStartsBetween(fd, buf, start, target + 1)) docStart = at;
          throw tooLong(displayName(path), lineAt(fd, buf, docStart), limits.maxDocBytes);
        }
        if (from + got >= size) break;
      }
      checkRange(fd, buf, path, start, cut, limits.maxDocBytes);
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
export async function* corpusChunks(inputs: readonly string[], places: InputPlaces, targetBytes: number, limits: ReadLimits): AsyncGenerator<CorpusChunk> {
  let index = 0;
  for (const path of inputs) {
    const size = places.size(path);
    if (size !== null) {
      if (size === 0) throw new VertdupError(`${displayName(path)}: input is empty`);
      for (const { offset, length } of fileRanges(path, size, targetBytes, limits)) {
        yield { index: index++, file: path, fileStart: offset === 0, bytes: { path, offset, length } };
      }
      continue;
    }
    for await (const chunk of chunkCorpus([path], targetBytes, limits)) {
      const bytes = new Uint8Array(chunk.bytes.length);
      bytes.set(chunk.bytes);
      yield { index: index++, file: path, fileStart: chunk.firstLine === 1, bytes };
    }
  }
}

/** A byte range of a plain file, as `fileRanges` cuts it. */
export interface FileRange {
  path: string;
  offset: number;
  length: number;
}

// A worker's buffer for the ranges it measures.
const measureBuffer = { bytes: new Uint8Array(0) };

/**
 * The document starts and newlines of a byte range, read in a worker: the coordinator
 * numbers documents and lines from them without reading the file itself.
 */
export function measureRange(range: FileRange): { docCount: number; lines: number } {
  const raw = loadStored(range, measureBuffer);
  return chunkExtent(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
}
