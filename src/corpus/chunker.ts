import { type Oversize, DEFAULT_MAX_DOC_BYTES } from "../core/options.js";
import { openInput, describeStreamError, displayName } from "./open-input.js";
import { countByte } from "../util/count-byte.js";
import { InputError, VertdupError } from "../core/errors.js";
import { badLine, isDocStartAt, parseTag, type Chunk } from "./vertical.js";
import type { Stored } from "./stored.js";

/** A chunk as a task gets it: its bytes in memory, or a byte range of a plain file the worker reads. */
export type StoredChunk = Omit<Chunk, "bytes"> & { bytes: Stored };

const NL = 0x0a;
const CR = 0x0d;
const LT = 0x3c;
const DOC_OPEN = Buffer.from("\n<doc");
const DOC_WORD = Buffer.from("doc");
/**
 * The last bytes read in which a document start may begin without being decided yet: a
 * start at s is known once `<doc` and the byte after it are read (s + 4), so one that is
 * not known yet is at s ≥ end − 4.
 */
const UNDECIDED = DOC_OPEN.length - 1;

/**
 * `buf.indexOf("\n<doc", from)`, found through the rare "doc": a search that starts with the
 * newline, which vertical text has every few bytes, read 100 MB in 280 ms against 40–70 ms,
 * and the coordinator searches every decompressed byte of a compressed input.
 */
export function indexOfDocOpen(buf: Buffer, from = 0): number {
  for (let j = buf.indexOf(DOC_WORD, Math.max(0, from) + 2); j !== -1; j = buf.indexOf(DOC_WORD, j + 1)) {
    if (buf[j - 1] === LT && buf[j - 2] === NL) return j - 2;
  }
  return -1;
}

function countDocStarts(buf: Buffer, from: number, to: number): number {
  // A UTF-8 byte-order mark before the file's first line is skipped, as the parser's decoder does.
  const first = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  let n = from === 0 && isDocStartAt(buf, first) ? 1 : 0;
  let i = indexOfDocOpen(buf, from - 1);
  while (i !== -1 && i + 1 < to) {
    if (isDocStartAt(buf, i + 1)) n++;
    i = indexOfDocOpen(buf, i + 1);
  }
  return n;
}

/** How many document starts and newlines a chunk's bytes hold: where the next chunk's ordinals and lines start. */
export type ChunkExtent = (bytes: Buffer) => { docCount: number; lines: number };

/** `ChunkExtent`, with `newlines` to count the newlines (a kernel holding the bytes). */
export function chunkExtent(bytes: Buffer, newlines: () => number = () => countByte(bytes, NL)): { docCount: number; lines: number } {
  return { docCount: countDocStarts(bytes, 0, bytes.length), lines: newlines() };
}

/**
 * The first document start at file offset ≥ `from` that `piece` (at file offset `base`)
 * decides: its `\n<doc` and next byte all read by now, including one begun in `carry`, the
 * last bytes before the piece; -1 when none. A start whose bytes are not all read is in the
 * next carry, and found with the next piece. The piece is scanned in place, never copied.
 */
function nextDocStart(carry: Buffer, piece: Buffer, base: number, from: number): number {
  const carryStart = base - carry.length;
  if (carry.length > 0 && from <= base) {
    const bridge = Buffer.concat([carry, piece.subarray(0, DOC_OPEN.length)]);
    for (let i = indexOfDocOpen(bridge, from - 1 - carryStart); i !== -1 && i < carry.length && i + DOC_OPEN.length < bridge.length; i = indexOfDocOpen(bridge, i + 1)) {
      if (isDocStartAt(bridge, i + 1)) return carryStart + i + 1;
    }
  }
  for (let i = indexOfDocOpen(piece, from - 1 - base); i !== -1 && i + DOC_OPEN.length < piece.length; i = indexOfDocOpen(piece, i + 1)) {
    if (isDocStartAt(piece, i + 1)) return base + i + 1;
  }
  return -1;
}

function lastBytes(buf: Buffer): Buffer {
  return buf.subarray(Math.max(0, buf.length - DOC_OPEN.length));
}

/** Limits on what one document may hold, so that memory stays bounded whatever the input. */
export interface ReadLimits {
  /** A document (or a line outside documents) longer than this is an error or skipped. */
  maxDocBytes: number;
  /** Absent: "error". */
  oversize?: Oversize;
  /** The document tag named in messages (the paragraph pass may use another than `doc`). */
  docTag?: string;
}

export function readLimits(maxDocBytes = DEFAULT_MAX_DOC_BYTES, oversize: Oversize = "error", docTag?: string): ReadLimits {
  return { maxDocBytes, oversize, docTag };
}

/** Documents skipped for their size: how many, and where the first one starts (`file:line`). */
export interface SkippedDocs {
  documents: number;
  first: string | null;
}

export function noSkippedDocs(): SkippedDocs {
  return { documents: 0, first: null };
}

export function noteSkipped(skipped: SkippedDocs, file: string, line: number): void {
  if (skipped.documents++ === 0) skipped.first = `${file}:${line}`;
}

/**
 * The bytes read but not yet emitted, as a list of pieces: a piece is copied once, when its
 * chunk is emitted, however many pieces arrive before the cut (a concatenation on every
 * read made a giant document quadratic).
 */
class Pending {
  private pieces: Buffer[] = [];
  /** Offset in the file of the first pending byte, and of the byte after the last. */
  start = 0;
  end = 0;

  push(piece: Buffer): void {
    if (piece.length === 0) return;
    this.pieces.push(piece);
    this.end += piece.length;
  }

  /**
   * Removes and returns the pending bytes before file offset `to`, in a buffer of their own
   * (never a view of a piece nor of Node's shared pool) that a consumer may transfer to a
   * worker without copying it.
   */
  take(to: number): Buffer {
    const out = Buffer.allocUnsafeSlow(to - this.start);
    let at = 0;
    for (const p of this.remove(to)) at += p.copy(out, at);
    return out;
  }

  /** Removes the pending bytes before file offset `to`, as the pieces they are in. */
  remove(to: number): Buffer[] {
    const parts: Buffer[] = [];
    const length = to - this.start;
    let need = length;
    while (need > 0) {
      const p = this.pieces[0];
      if (p.length <= need) {
        parts.push(p);
        this.pieces.shift();
        need -= p.length;
      } else {
        parts.push(p.subarray(0, need));
        this.pieces[0] = p.subarray(need);
        need = 0;
      }
    }
    this.start = to;
    return parts;
  }

  /** The first pending line with its line end, or null when its end is not read yet. */
  firstLine(): Buffer | null {
    const parts: Buffer[] = [];
    for (const p of this.pieces) {
      const nl = p.indexOf(NL);
      parts.push(nl === -1 ? p : p.subarray(0, nl + 1));
      if (nl !== -1) return Buffer.concat(parts);
    }
    return null;
  }

  /** The first `n` pending bytes (fewer when fewer are pending). */
  head(n: number): Buffer {
    const parts: Buffer[] = [];
    for (let i = 0, got = 0; i < this.pieces.length && got < n; i++) {
      parts.push(this.pieces[i].subarray(0, n - got));
      got += parts[i].length;
    }
    return Buffer.concat(parts);
  }

  /** The document starts s with `from` < s < `to` in the pending bytes (`from` ≥ the first pending byte). */
  docStartsBetween(from: number, to: number): number[] {
    const parts: Buffer[] = [];
    let skip = from - this.start;
    for (const p of this.pieces) {
      if (skip >= p.length) skip -= p.length;
      else {
        parts.push(p.subarray(skip));
        skip = 0;
      }
    }
    const seen = Buffer.concat(parts);
    const starts: number[] = [];
    for (let i = indexOfDocOpen(seen); i !== -1 && from + i + 1 < to; i = indexOfDocOpen(seen, i + 1)) {
      if (isDocStartAt(seen, i + 1)) starts.push(from + i + 1);
    }
    return starts;
  }

  /** Newlines between the first pending byte and file offset `to`. */
  newlinesBefore(to: number): number {
    let n = 0;
    let at = this.start;
    for (const p of this.pieces) {
      if (at >= to) break;
      n += countByte(p, NL, 0, Math.min(p.length, to - at));
      at += p.length;
    }
    return n;
  }
}

/**
 * The first lines of a file, up to its first tag line, checked as they arrive: a token
 * there is outside any document whatever follows, so a file without `<doc>` fails at its
 * first line, not after the whole file has been read.
 */
export class HeadCheck {
  private parts: Buffer[] = [];
  private length = 0;
  private line = 1;
  done = false;

  constructor(
    private readonly file: string,
    private readonly docTag = "doc",
  ) {}

  feed(piece: Buffer): void {
    let pos = 0;
    while (!this.done && pos < piece.length) {
      const nl = piece.indexOf(NL, pos);
      const part = piece.subarray(pos, nl === -1 ? piece.length : nl);
      if (part.length > 0) {
        this.parts.push(part);
        this.length += part.length;
      }
      if (nl === -1) {
        // A line that does not start with `<` is a token line, complete or not.
        const first = this.firstByte();
        if (first !== -1 && first !== LT) throw new InputError(this.file, this.line, badLine.tokenOutside(this.docTag));
        return;
      }
      this.lineEnd();
      pos = nl + 1;
    }
  }

  /** The line's first byte after a byte-order mark, or -1 when not known yet. */
  private firstByte(): number {
    const at = this.line === 1 && this.byteAt(0) === 0xef && this.byteAt(1) === 0xbb && this.byteAt(2) === 0xbf ? 3 : 0;
    if (this.line === 1 && this.byteAt(0) === 0xef && this.length < 4) return -1;
    return this.byteAt(at);
  }

  private byteAt(i: number): number {
    for (const p of this.parts) {
      if (i < p.length) return p[i];
      i -= p.length;
    }
    return -1;
  }

  private lineEnd(): void {
    const bytes = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.length);
    const from = this.line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    if (bytes.length > from) {
      if (bytes[bytes.length - 1] === CR) throw new InputError(this.file, this.line, badLine.crlf);
      if (bytes[from] !== LT || parseTag(bytes, from, bytes.length) === null) throw new InputError(this.file, this.line, badLine.tokenOutside(this.docTag));
      this.done = true;
    }
    this.parts = [];
    this.length = 0;
    this.line++;
  }
}

/**
 * What stays of a document skipped for its size: its `<doc` line (`firstLine`, null when it
 * had not ended) and `</doc>`, so that it keeps its ordinal and id but has no content. A
 * `<doc` line longer than the limit loses its attributes (its id is its ordinal), whichever
 * way the input was read.
 */
export function skippedStub(firstLine: Buffer | null, maxDocBytes: number): Buffer {
  const line = firstLine !== null && firstLine.length <= maxDocBytes ? firstLine : Buffer.from("<doc>\n");
  return Buffer.concat([line, Buffer.from("</doc>\n")]);
}

export function tooLong(file: string, line: number, limit: number): InputError {
  return new InputError(file, line, `more than ${limit} bytes from this line to the next <doc>: a document or line larger than --max-doc-bytes`);
}

/** A chunk as `cutCorpus` yields it: its numbers are counted in its worker (chunk-chain.ts), its first line given when known. */
export type CutChunk = Omit<Chunk, "firstDoc" | "firstLine" | "docCount"> & { firstLine?: number };

/**
 * Splits the inputs, in order, into chunks of at least `targetBytes` (up to the next
 * document start). Memory held is one pending chunk plus the stream buffer; a document
 * longer than `limits.maxDocBytes` stops the reading with its file and line, or (skip) ends
 * the chunk before it, comes as a `skipped` chunk of its own, and its other bytes are read
 * and dropped up to the next document start. Text before a file's first `<doc` is not a
 * document: longer than the limit, it is an error either way.
 */
export function chunkCorpus(inputs: readonly string[], targetBytes: number, limits: ReadLimits = readLimits()): AsyncGenerator<Chunk> {
  return cutInputs(inputs, targetBytes, limits, null) as AsyncGenerator<Chunk>;
}

/**
 * chunkCorpus without counting the chunks' documents and newlines, which their workers count
 * (chunk-chain.ts): a chunk's first line is given only when known (a file's first chunk, a
 * skipped document and the chunk after it). `lineBefore`: the line after the last chunk
 * yielded, once its worker has counted it; asked only to name the line of a document over
 * the limit.
 */
export function cutCorpus(inputs: readonly string[], targetBytes: number, limits: ReadLimits, lineBefore: () => Promise<number>): AsyncGenerator<CutChunk> {
  return cutInputs(inputs, targetBytes, limits, lineBefore);
}

async function* cutInputs(
  inputs: readonly string[],
  targetBytes: number,
  limits: ReadLimits,
  lineBefore: (() => Promise<number>) | null,
): AsyncGenerator<Chunk | CutChunk> {
  let index = 0;
  let docOrdinal = 0;
  for (const path of inputs) {
    const file = displayName(path);
    const stream = openInput(path);
    const pending = new Pending();
    const head = new HeadCheck(file, limits.docTag);
    const fileFirst = index;
    // The last bytes read, in which a `\n<doc` line start may continue into the next piece.
    let carry: Buffer = Buffer.alloc(0);
    // File offset of the current document's start (or of the file's start), or of an earlier one (catchUp).
    let docStart = 0;
    // The line of the first pending byte; null when not counted (the end of the last chunk yielded).
    let firstLine: number | null = 1;
    const emit = (bytes: Buffer): Chunk | CutChunk => {
      if (lineBefore !== null) {
        const cut: CutChunk = { index: index++, file: path, ...(firstLine !== null ? { firstLine } : {}), bytes };
        firstLine = null;
        return cut;
      }
      const { docCount, lines } = chunkExtent(bytes);
      const chunk: Chunk = { index: index++, file: path, firstLine: firstLine!, firstDoc: docOrdinal, docCount, bytes };
      docOrdinal += docCount;
      firstLine! += lines;
      return chunk;
    };
    // Reading an oversized document's bytes only to drop them (--oversize skip).
    let skipping = false;
    const drop = (to: number) => {
      firstLine! += pending.newlinesBefore(to);
      pending.remove(to);
    };
    // The document at docStart is longer than the limit: the chunk before it, then its stub.
    async function* skipDoc(): AsyncGenerator<Chunk | CutChunk> {
      const line = (firstLine ?? (await lineBefore!())) + pending.newlinesBefore(docStart);
      if (limits.oversize !== "skip") throw tooLong(file, line, limits.maxDocBytes);
      if (docStart > pending.start) yield emit(pending.take(docStart));
      firstLine = line;
      const start = pending.head(8);
      if (countDocStarts(start, 0, start.length) === 0) throw tooLong(file, line, limits.maxDocBytes);
      // A `<doc` line too long to have ended yet loses its attributes (its id is its ordinal).
      const bytes = skippedStub(pending.firstLine(), limits.maxDocBytes);
      // The first lines were a tag line and a document: nothing more to check there.
      head.done = true;
      yield lineBefore !== null ? { index: index++, file: path, firstLine, bytes, skipped: true } : { index: index++, file: path, firstLine, firstDoc: docOrdinal++, docCount: 1, bytes, skipped: true };
      skipping = true;
    }
    // A document start, in file order: it may end a skipped document, show the one before it too long, or cut a chunk.
    async function* onStart(at: number): AsyncGenerator<Chunk | CutChunk> {
      if (!skipping && at - docStart > limits.maxDocBytes) yield* skipDoc();
      if (skipping) {
        drop(at);
        skipping = false;
      }
      docStart = at;
      // Cut at the first document that starts past the target size, so that chunk
      // boundaries depend on the bytes alone, not on how the stream delivered them.
      if (at - pending.start >= targetBytes) yield emit(pending.take(at));
    }
    // The starts before `to` that were not looked at, gone through in order when the document
    // at docStart reaches past the limit at `reach` (otherwise they neither cut nor end one too long).
    async function* catchUp(to: number, reach: number): AsyncGenerator<Chunk | CutChunk> {
      if (reach - docStart <= limits.maxDocBytes) return;
      for (const at of pending.docStartsBetween(docStart, to)) yield* onStart(at);
    }
    try {
      for await (const piece of stream as AsyncIterable<Buffer>) {
        if (!head.done) head.feed(piece);
        const base = pending.end;
        pending.push(piece);
        // Only starts that may cut a chunk or end a skipped document are looked for: the
        // others matter only when a document seems too long, and are gone through then.
        for (let at = nextDocStart(carry, piece, base, skipping ? 0 : pending.start + targetBytes); at !== -1; at = nextDocStart(carry, piece, base, Math.max(at + 1, pending.start + targetBytes))) {
          if (!skipping) yield* catchUp(at, at);
          yield* onStart(at);
        }
        carry = piece.length >= DOC_OPEN.length ? piece.subarray(piece.length - DOC_OPEN.length) : lastBytes(Buffer.concat([carry, piece]));
        // The document is over the limit only when a next `<doc` in the undecided last bytes
        // would not end it in time: judged sooner, it would depend on where the reads end.
        if (!skipping) yield* catchUp(pending.end - UNDECIDED, pending.end - UNDECIDED);
        if (!skipping && pending.end - UNDECIDED - docStart > limits.maxDocBytes) yield* skipDoc();
        // The last bytes may begin the next `\n<doc`, found with the next piece.
        if (skipping) drop(Math.max(pending.start, pending.end - DOC_OPEN.length));
      }
    } catch (err) {
      if (err instanceof VertdupError) throw err;
      throw describeStreamError(path, err);
    }
    if (!skipping) yield* catchUp(pending.end - UNDECIDED, pending.end);
    if (!skipping && pending.end - docStart > limits.maxDocBytes) yield* skipDoc();
    if (skipping) {
      pending.remove(pending.end);
    } else if (pending.end > pending.start) {
      yield emit(pending.take(pending.end));
    } else if (index === fileFirst) {
      throw new VertdupError(`${file}: input is empty`);
    }
  }
}
