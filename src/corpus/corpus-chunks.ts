import { closeSync, openSync, readSync } from "node:fs";
import { chunkCorpus, HeadCheck, indexOfDocOpen, noteSkipped, skippedStub, tooLong, type ReadLimits, type SkippedDocs } from "./chunker.js";
import { isDocStartAt } from "./vertical.js";
import { displayName } from "./open-input.js";
import { countByte } from "../util/count-byte.js";
import { ownedBytes } from "../util/typed-arrays.js";
import { VertdupError } from "../core/errors.js";
import type { InputPlaces } from "./input-places.js";
import type { Stored } from "./stored.js";

/** A chunk of the paragraph pass: whole documents of one input, in corpus order. */
export interface CorpusChunk {
  index: number;
  file: string;
  /** True for the first chunk of its file (which alone may start with a byte-order mark). */
  fileStart: boolean;
  /** The line of its first byte in its file when known; otherwise the chunks before it tell. */
  firstLine?: number;
  /** A plain file's byte range (read by the worker), or bytes that cannot be read again. */
  bytes: Stored;
}

const WINDOW = 64 << 10;
const NL = 0x0a;
const DOC_OPEN = Buffer.from("\n<doc");

/** The first `\n<doc` line start in `seen` whose next byte is in `seen` too, or -1. */
function docStartIn(seen: Buffer): number {
  let i = indexOfDocOpen(seen);
  while (i !== -1 && i + DOC_OPEN.length < seen.length && !isDocStartAt(seen, i + 1)) i = indexOfDocOpen(seen, i + 1);
  return i !== -1 && i + DOC_OPEN.length < seen.length ? i : -1;
}

/** Document starts s with from < s < to, read through `buf` in windows. */
function* docStartsBetween(fd: number, buf: Buffer, from0: number, to: number): Generator<number> {
  for (let from = from0; from < to; from += WINDOW - DOC_OPEN.length) {
    const seen = buf.subarray(0, readSync(fd, buf, 0, Math.min(WINDOW, to - from + DOC_OPEN.length), from));
    // Windows overlap by the pattern's length: a line start is looked at in one window only.
    const fresh = Math.min(seen.length, WINDOW - DOC_OPEN.length, to - from);
    for (let i = indexOfDocOpen(seen); i !== -1 && i < fresh; i = indexOfDocOpen(seen, i + 1)) {
      const at = from + i + 1;
      if (at > from0 && at < to && i + DOC_OPEN.length < seen.length && isDocStartAt(seen, i + 1)) yield at;
    }
    if (seen.length < WINDOW) return;
  }
}

/** A document longer than the limit: its start and the next document's (or the file's end). */
interface Oversized {
  from: number;
  to: number;
}

/** The first document of the range [start, cut) longer than `maxDocBytes`, or null. */
function oversizedIn(fd: number, buf: Buffer, start: number, cut: number, maxDocBytes: number): Oversized | null {
  // Only a range longer than the limit (a long document or a large chunk size) can hold one.
  if (cut - start <= maxDocBytes) return null;
  let docStart = start;
  for (const at of docStartsBetween(fd, buf, start, cut)) {
    if (at - docStart > maxDocBytes) return { from: docStart, to: at };
    docStart = at;
  }
  return cut - docStart > maxDocBytes ? { from: docStart, to: cut } : null;
}

/** Whether file offset `at` starts a `<doc` line (any found start does; offset 0 is read). */
function isDocAt(fd: number, buf: Buffer, at: number): boolean {
  if (at > 0) return true;
  const got = readSync(fd, buf, 0, 9, 0);
  const from = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  return got - from >= 5 && isDocStartAt(buf, from);
}

/**
 * The stub of a document skipped for its size (chunker.ts skippedStub): its `<doc` line,
 * read in windows up to `maxDocBytes`, and `</doc>`.
 */
export function skippedRangeStub(path: string, range: CutRange, maxDocBytes: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.allocUnsafe(WINDOW);
    const parts: Buffer[] = [];
    for (let at = range.offset, end = range.offset + Math.min(range.length, maxDocBytes + 1); at < end; ) {
      const got = readSync(fd, buf, 0, Math.min(WINDOW, end - at), at);
      if (got === 0) break;
      const nl = buf.subarray(0, got).indexOf(NL);
      parts.push(Buffer.from(buf.subarray(0, nl === -1 ? got : nl + 1)));
      if (nl !== -1) return skippedStub(Buffer.concat(parts), maxDocBytes);
      at += got;
    }
    return skippedStub(null, maxDocBytes);
  } finally {
    closeSync(fd);
  }
}

/** Line numbers of increasing file offsets, each byte counted once. */
class LineCounter {
  private offset = 0;
  private line = 1;

  constructor(
    private readonly fd: number,
    private readonly buf: Buffer,
  ) {}

  at(to: number): number {
    for (; this.offset < to; this.offset += WINDOW) {
      const got = readSync(this.fd, this.buf, 0, Math.min(WINDOW, to - this.offset), this.offset);
      this.line += countByte(this.buf, NL, 0, got);
    }
    this.offset = to;
    return this.line;
  }
}

/** A byte range of a file's ranges; `skipped` for a document over the limit (--oversize skip). */
export interface CutRange {
  offset: number;
  length: number;
  /** The line of its first byte, when known without reading the ranges before it. */
  firstLine?: number;
  skipped?: true;
}

/**
 * Byte ranges of a plain file, cut as the core chunker cuts (before the first `<doc` line
 * that starts at or after `targetBytes`), found by reading small windows: the coordinator
 * never reads the corpus itself, the workers read their ranges. Its first lines are checked
 * as the core chunker checks them, and a document that spans more than `maxDocBytes` past a
 * range's target size stops the reading (a range holds at most targetBytes + maxDocBytes),
 * or (skip) ends the range before it and comes as a `skipped` range of its own.
 */
export function* fileRanges(path: string, size: number, targetBytes: number, limits: ReadLimits): Generator<CutRange> {
  const fd = openSync(path, "r");
  const buf = Buffer.allocUnsafe(WINDOW);
  const lines = new LineCounter(fd, Buffer.allocUnsafe(WINDOW));
  try {
    const head = new HeadCheck(displayName(path), limits.docTag);
    for (let from = 0; !head.done && from < Math.min(size, limits.maxDocBytes); from += WINDOW) {
      head.feed(Buffer.from(buf.subarray(0, readSync(fd, buf, 0, WINDOW, from))));
    }
    let start = 0;
    let firstLine: number | undefined;
    while (start < size) {
      let cut = size;
      let big: Oversized | null = null;
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
          const next = docStartsBetween(fd, buf, docStart, size).next();
          big = { from: docStart, to: next.done === true ? size : next.value };
          break;
        }
        if (from + got >= size) break;
      }
      big ??= oversizedIn(fd, buf, start, cut, limits.maxDocBytes);
      if (big === null) {
        yield { offset: start, length: cut - start, firstLine };
        firstLine = undefined;
        start = cut;
        continue;
      }
      const line = lines.at(big.from);
      if (limits.oversize !== "skip" || !isDocAt(fd, buf, big.from)) throw tooLong(displayName(path), line, limits.maxDocBytes);
      if (big.from > start) yield { offset: start, length: big.from - start, firstLine };
      yield { offset: big.from, length: big.to - big.from, firstLine: line, skipped: true };
      firstLine = lines.at(big.to);
      start = big.to;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The chunks of the corpus: plain regular files as byte ranges, other inputs (compressed,
 * standard input, pipes) through the core chunker, their bytes in a buffer of their own.
 * Documents skipped for their size (--oversize skip) are counted in `skipped`, not chunks.
 */
export async function* corpusChunks(inputs: readonly string[], places: InputPlaces, targetBytes: number, limits: ReadLimits, skipped: SkippedDocs): AsyncGenerator<CorpusChunk> {
  let index = 0;
  for (const path of inputs) {
    const size = places.size(path);
    if (size !== null) {
      if (size === 0) throw new VertdupError(`${displayName(path)}: input is empty`);
      for (const { offset, length, firstLine, skipped: skip } of fileRanges(path, size, targetBytes, limits)) {
        if (skip) noteSkipped(skipped, displayName(path), firstLine ?? 1);
        else yield { index: index++, file: path, fileStart: offset === 0, firstLine, bytes: { path, offset, length } };
      }
      continue;
    }
    for await (const chunk of chunkCorpus([path], targetBytes, limits)) {
      if (chunk.skipped) {
        noteSkipped(skipped, displayName(path), chunk.firstLine);
        continue;
      }
      yield { index: index++, file: path, fileStart: chunk.firstLine === 1, firstLine: chunk.firstLine, bytes: ownedBytes(chunk.bytes) };
    }
  }
}
