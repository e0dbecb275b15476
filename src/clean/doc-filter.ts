import type { Oversize } from "../core/options.js";
import { badLine, isDocStartAt } from "../corpus/vertical.js";
import { InputError } from "../core/errors.js";
import { remarkDocLine, type DocAction } from "./doc-marks.js";

const NL = 0x0a;
const CR = 0x0d;
const GT = 0x3e;
/** Enough of a line (with a byte-order mark) to tell `<doc ` and `</doc>` from other lines. */
const HEAD_BYTES = 9;

/** A `<doc` line at `at` of a line ending at `end` (the chunker's rule: not `<document>`). */
function isDocOpen(buf: Buffer, at: number, end: number): boolean {
  return end - at >= 5 && isDocStartAt(buf, at);
}

/** `</doc` followed by `>` or white space. */
function isDocClose(buf: Buffer, at: number, end: number): boolean {
  if (end - at < 6 || buf[at] !== 0x3c || buf[at + 1] !== 0x2f || buf[at + 2] !== 0x64 || buf[at + 3] !== 0x6f || buf[at + 4] !== 0x63) return false;
  const c = buf[at + 5];
  return c === GT || c === 0x20 || c === 0x09;
}

/**
 * Streams one input file's bytes and passes them on unchanged, except that each document's
 * action applies: `remove` drops its lines from `<doc` through `</doc>` (with their line
 * ends), `mark` replaces the dup attributes of its `<doc` line (`remarkDocLine`). Nothing else
 * is touched, so every other byte comes out as it went in. A line longer than
 * `maxLineBytes` is an error, or (skip) is copied out as it arrives, never held whole: its
 * first bytes tell whether it opens or closes a document, and a `<doc` line that long is
 * decided without its text (`docLine` null) and never changed.
 */
export class DocFilter {
  /** The start of a line not ended yet, as the pieces it arrived in (joined once, at its end). */
  private carry: Buffer[] = [];
  private carryBytes = 0;
  private line = 0;
  private inDoc = false;
  private removing = false;
  private docLine = 0;
  private atFileStart = true;
  /** Inside a line over the limit, copied out as it arrives (skip). */
  private longLine = false;
  /** Lines over the limit (skip) and the first one's number. */
  longLines = 0;
  firstLongLine = 0;

  constructor(
    private readonly file: string,
    private ordinal: number,
    private readonly decide: (ordinal: number, docLine: Buffer | null, line: number) => DocAction,
    private readonly maxLineBytes: number,
    private readonly oversize: Oversize = "error",
  ) {}

  /** Documents seen so far, counted from the corpus start. */
  get nextOrdinal(): number {
    return this.ordinal;
  }

  /** Processes the complete lines of `piece` (the rest waits for the next piece). */
  push(piece: Buffer, out: Buffer[]): void {
    if (this.longLine) {
      const nl = piece.indexOf(NL);
      if (!this.removing) out.push(nl === -1 ? piece : piece.subarray(0, nl + 1));
      if (nl === -1) return;
      this.endLongLine();
      piece = piece.subarray(nl + 1);
    }
    const first = piece.indexOf(NL);
    // A line that ends in this piece is held no longer than one that fits (carry + piece), and
    // `lines` judges it; one that goes on is known to be too long from its bytes so far.
    if (first === -1 && this.carryBytes + piece.length > this.maxLineBytes) {
      if (this.oversize !== "skip") throw this.tooLong(this.line + 1);
      if (this.carryBytes + piece.length >= HEAD_BYTES) return this.startLongLine(piece, out);
    }
    if (first === -1) {
      this.carry.push(piece);
      this.carryBytes += piece.length;
      return;
    }
    const buf = this.carryBytes > 0 ? Buffer.concat([...this.carry, piece]) : piece;
    const last = buf.lastIndexOf(NL);
    this.lines(buf, last + 1, out);
    this.carry = last + 1 < buf.length ? [buf.subarray(last + 1)] : [];
    this.carryBytes = buf.length - last - 1;
  }

  /** Begins copying out a line over the limit: `piece` continues the carried start of it. */
  private startLongLine(piece: Buffer, out: Buffer[]): void {
    const parts = [...this.carry, piece];
    let head = Buffer.concat(parts.map((p) => p.subarray(0, HEAD_BYTES)), HEAD_BYTES);
    if (this.atFileStart && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) head = head.subarray(3);
    this.atFileStart = false;
    this.line++;
    this.noteLongLine();
    this.longLine = true;
    if (isDocOpen(head, 0, head.length)) {
      if (this.inDoc) throw new InputError(this.file, this.line, badLine.nestedOpen(this.docLine));
      this.inDoc = true;
      this.docLine = this.line;
      if (this.decide(this.ordinal++, null, this.line).kind === "remove") this.removing = true;
    } else if (isDocClose(head, 0, head.length)) {
      if (!this.inDoc) throw new InputError(this.file, this.line, badLine.strayClose());
      this.inDoc = false;
    }
    if (!this.removing) out.push(...parts);
    this.carry = [];
    this.carryBytes = 0;
  }

  private tooLong(line: number): InputError {
    return new InputError(this.file, line, `line longer than --max-doc-bytes (${this.maxLineBytes} bytes)`);
  }

  /** Counts the current line as one over the limit (--oversize skip). */
  private noteLongLine(): void {
    if (this.longLines++ === 0) this.firstLongLine = this.line;
  }

  /** A removed document ends after its `</doc>` line. */
  private endLongLine(): void {
    this.longLine = false;
    if (!this.inDoc) this.removing = false;
  }

  /** Processes a last line without a line end and checks that no document is left open. */
  end(out: Buffer[]): void {
    if (this.longLine) this.endLongLine();
    if (this.carryBytes > 0) this.lines(Buffer.concat(this.carry), this.carryBytes, out);
    this.carry = [];
    this.carryBytes = 0;
    if (this.inDoc) throw new InputError(this.file, this.docLine, badLine.neverClosed());
  }

  private lines(buf: Buffer, to: number, out: Buffer[]): void {
    let keepFrom = 0;
    let start = 0;
    while (start < to) {
      let nl = buf.indexOf(NL, start);
      if (nl === -1 || nl >= to) nl = to;
      const next = Math.min(nl + 1, to);
      this.line++;
      // A byte-order mark before the file's first line is part of that line's bytes.
      const at = this.atFileStart && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : start;
      this.atFileStart = false;
      // Whichever piece its end arrived in, a line over the limit is one (see startLongLine).
      const long = nl - start > this.maxLineBytes;
      if (long) {
        if (this.oversize !== "skip") throw this.tooLong(this.line);
        this.noteLongLine();
      }
      // The reader's rules in both modes: a CRLF line end anywhere, a `<doc` line cut before its `>`.
      if (nl > start && buf[nl - 1] === CR) throw new InputError(this.file, this.line, badLine.crlf);
      if (isDocOpen(buf, at, nl)) {
        if (!long && buf[nl - 1] !== GT) throw new InputError(this.file, this.line, badLine.openUnclosed());
        if (this.inDoc) throw new InputError(this.file, this.line, badLine.nestedOpen(this.docLine));
        this.inDoc = true;
        this.docLine = this.line;
        const action = this.decide(this.ordinal++, long ? null : buf.subarray(at, nl), this.line);
        if (action.kind === "remove") {
          if (start > keepFrom) out.push(buf.subarray(keepFrom, start));
          this.removing = true;
        } else if (action.kind === "mark" && !long) {
          const marked = remarkDocLine(buf.subarray(at, nl), action.attributes);
          if (marked !== null) {
            out.push(buf.subarray(keepFrom, at), marked);
            keepFrom = nl;
          }
        }
      } else if (isDocClose(buf, start, nl)) {
        if (!this.inDoc) throw new InputError(this.file, this.line, badLine.strayClose());
        this.inDoc = false;
        if (this.removing) {
          this.removing = false;
          keepFrom = next;
        }
      }
      start = next;
    }
    if (!this.removing && to > keepFrom) out.push(buf.subarray(keepFrom, to));
  }
}
