import type { ReaderOptions } from "../core/options.js";
import { isUtf8 } from "node:buffer";
import { InputError } from "../core/errors.js";
import { displayName } from "./open-input.js";

/** One document of a vertical corpus, with one value of type T per token line. */
export interface Doc<T> {
  /** 0-based position of the document in the whole corpus. */
  ordinal: number;
  /** Value of the id attribute of `<doc>`, or the 1-based ordinal when it has none. */
  id: string;
  /** Line number of the `<doc` line within its file. */
  line: number;
  /** What `readToken` made of the chosen positional attribute of every token line, in order. */
  tokens: T[];
  /** Only with `ReaderOptions.partitionAttr`: the document's partition value (partitionValue). */
  part?: string;
  /**
   * Only with `ReaderOptions.paragraphs`: token ranges of the `<p>` elements, flat as
   * [start0, end0, start1, end1, …] (an unclosed `<p>` ends at the next `<p>` or `</doc>`).
   */
  paragraphs?: number[];
}

/** A document whose tokens are the column values as strings. */
export type VerticalDoc = Doc<string>;

/**
 * Turns the bytes [start, end) of a token's column value (valid UTF-8) into a token. Token
 * readers that work on bytes spare a string per token line.
 */
export type TokenReader<T> = (bytes: Buffer, start: number, end: number) => T;

/** Lenient problems: counted and reported in the manifest, never fatal. */
export interface ReaderWarnings {
  /** A closing tag such as `</p>` with no matching open tag. */
  strayClosingTag: number;
  /** A structure such as `<p>` still open at `</doc>`. */
  unclosedStructure: number;
  /** An empty line (carries no token). */
  emptyLine: number;
  /** A structure tag other than `<doc>` outside any document. */
  tagOutsideDoc: number;
}

export function emptyWarnings(): ReaderWarnings {
  return { strayClosingTag: 0, unclosedStructure: 0, emptyLine: 0, tagOutsideDoc: 0 };
}

export function addWarnings(into: ReaderWarnings, from: ReaderWarnings): void {
  for (const key of Object.keys(into) as (keyof ReaderWarnings)[]) into[key] += from[key];
}


// A structure line: `<name attr…>`, `</name>` or `<name…/>`. Anything else is a token, so a
// token such as `<` or `<3` is not mistaken for a tag. The attribute part is matched lazily so
// that the `/` of `<ref target="x"/>` or `<g />` marks the tag as empty, and it may contain `>`
// (as in `title="a > b"`): only the `>` that ends the line closes the tag.
export const TAG = /^<(\/?)([A-Za-z_][\w.:-]*)(?:\s[\s\S]*?)?(\/?)>$/;

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Checks the chunk is valid UTF-8; otherwise names the first offending line. */
function checkUtf8(chunk: Chunk): void {
  if (isUtf8(chunk.bytes)) return;
  let start = 0;
  let line = chunk.firstLine;
  for (;;) {
    let end = chunk.bytes.indexOf(0x0a, start);
    if (end === -1) end = chunk.bytes.length;
    try {
      decoder.decode(chunk.bytes.subarray(start, end));
    } catch {
      throw new InputError(displayName(chunk.file), line, badLine.utf8);
    }
    start = end + 1;
    line++;
  }
}

/** A document's `--partition-attr` value: the empty value when its `<doc>` has no such attribute. */
export function partitionValue(tagLine: string, name: string, where: LinePlace): string {
  return attributeValue(tagLine, name, where) ?? "";
}

/** A line of an input, for the error a malformed tag gives. */
export interface LinePlace {
  file: string;
  line: number;
}

/**
 * The value of attribute `name` of a tag line (`<doc id="a" title='b'>`), its attributes read
 * one after the other as XML has them: `name = "v"`, `name='v'`, and the unquoted `name=v` of
 * SGML-style corpora; text inside another attribute's value is never taken for an attribute.
 * Undefined when the tag has no such attribute. A quote that never closes (`id="x'`) is bad
 * input at `where`: the rest of the line is inside the value, so no later attribute can be read.
 */
export function attributeValue(tagLine: string, name: string, where: LinePlace): string | undefined {
  const n = tagLine.length;
  let i = tagLine.indexOf("<") + 1;
  // The tag's name.
  while (i < n && !isSpaceOrEnd(tagLine, i)) i++;
  for (;;) {
    while (i < n && isAsciiSpace(tagLine.charCodeAt(i))) i++;
    if (i >= n || tagLine[i] === ">" || tagLine[i] === "/") return undefined;
    const start = i;
    while (i < n && tagLine[i] !== "=" && !isSpaceOrEnd(tagLine, i)) i++;
    const attr = tagLine.slice(start, i);
    while (i < n && isAsciiSpace(tagLine.charCodeAt(i))) i++;
    // A bare word without a value (`<doc checked>`): no attribute of ours.
    if (tagLine[i] !== "=") {
      if (i === start) i++;
      continue;
    }
    i++;
    while (i < n && isAsciiSpace(tagLine.charCodeAt(i))) i++;
    let value: string;
    const quote = tagLine[i];
    if (quote === '"' || quote === "'") {
      const end = tagLine.indexOf(quote, i + 1);
      if (end === -1) throw new InputError(where.file, where.line, `the value of ${attr}= opens with ${quote} and never closes`);
      value = tagLine.slice(i + 1, end);
      i = end + 1;
    } else {
      const from = i;
      while (i < n && !isSpaceOrEnd(tagLine, i)) i++;
      value = tagLine.slice(from, i);
    }
    if (attr === name) return value;
  }
}

/** A space, or the end of the tag (`>`, `/>`), at `i`. */
function isSpaceOrEnd(line: string, i: number): boolean {
  const c = line[i];
  return isAsciiSpace(line.charCodeAt(i)) || c === ">" || (c === "/" && line[i + 1] === ">");
}

/**
 * Whether a `<doc` line starts at `lineStart`: `<doc` followed by a space, a tab, `>` or CR
 * (not `<document>` nor `<doc_meta>`; a CR line end is the reader's error). The one rule for
 * the chunker, the paragraph plan (corpus-chunks.ts), the reader and clean's filter.
 */
export function isDocStartAt(buf: Buffer, lineStart: number): boolean {
  if (buf[lineStart] !== 0x3c || buf[lineStart + 1] !== 0x64 || buf[lineStart + 2] !== 0x6f || buf[lineStart + 3] !== 0x63) return false;
  const c = buf[lineStart + 4];
  return c === 0x20 || c === 0x09 || c === 0x3e || c === 0x0d;
}

/**
 * Whether the line at `start` begins as an opening `<tag` does (`isDocStartAt`'s rule, for
 * any tag name): asked of a line that is no tag, it means a `<tag` line cut before its `>`.
 */
export function opensLike(bytes: Uint8Array, start: number, tag: Uint8Array): boolean {
  if (bytes[start] !== 0x3c) return false;
  for (let i = 0; i < tag.length; i++) if (bytes[start + 1 + i] !== tag[i]) return false;
  const c = bytes[start + 1 + tag.length];
  return c === 0x20 || c === 0x09 || c === 0x3e;
}

/** A structure line taken apart: `</name>` is closing, `<name …/>` self-closing. */
export interface TagParts {
  closing: boolean;
  name: string;
  selfClosing: boolean;
}

const isAsciiSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);
const isNameStart = (c: number) => ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a) || c === 0x5f;
const isNameChar = (c: number) => isNameStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x3a || c === 0x2d;

/**
 * A structure line read from its bytes: the name as the byte range [nameStart, nameEnd), or
 * decoded in `name` when the line needed the regex (then the range is −1, −1).
 */
export interface TagShape {
  closing: boolean;
  selfClosing: boolean;
  nameStart: number;
  nameEnd: number;
  name: string | null;
}

/**
 * The TAG regex applied to the line bytes [start, end) that begin with `<`: false for a
 * token line, else true with the tag's shape in `out` (filled in place: this runs for every
 * tag line of the corpus). Names are ASCII; only a non-ASCII byte right after the name (a
 * Unicode `\s` may start the attributes) sends the decoded line to the regex itself.
 */
export function readTag(bytes: Buffer, start: number, end: number, out: TagShape): boolean {
  let i = start + 1;
  const closing = bytes[i] === 0x2f;
  if (closing) i++;
  if (i >= end || !isNameStart(bytes[i])) return false;
  const nameStart = i;
  while (i < end && isNameChar(bytes[i])) i++;
  out.closing = closing;
  if (i < end && bytes[i] >= 0x80) {
    const m = TAG.exec(bytes.toString("utf8", start, end));
    if (m === null) return false;
    out.closing = m[1] === "/";
    out.selfClosing = m[3] === "/";
    out.nameStart = out.nameEnd = -1;
    out.name = m[2];
    return true;
  }
  if (bytes[end - 1] !== 0x3e) return false;
  if (i === end - 1) out.selfClosing = false;
  else if (i === end - 2 && bytes[i] === 0x2f) out.selfClosing = true;
  else if (isAsciiSpace(bytes[i])) out.selfClosing = end - 2 > i && bytes[end - 2] === 0x2f;
  else return false;
  out.nameStart = nameStart;
  out.nameEnd = i;
  out.name = null;
  return true;
}

export function emptyTagShape(): TagShape {
  return { closing: false, selfClosing: false, nameStart: -1, nameEnd: -1, name: null };
}

const shape = emptyTagShape();

/** `readTag` with the name as a string, or null for a token line. */
export function parseTag(bytes: Buffer, start: number, end: number): TagParts | null {
  if (!readTag(bytes, start, end, shape)) return null;
  return { closing: shape.closing, name: shape.name ?? tagName(bytes, shape.nameStart, shape.nameEnd), selfClosing: shape.selfClosing };
}

/** Tag names of up to six bytes by their bytes read as one number (few: p, s, g, doc, …). */
const shortNames = new Map<number, string>();
const SHORT_NAMES_LIMIT = 4096;

/** The ASCII tag name [start, end) as a string, without a new string for short names met before. */
function tagName(bytes: Buffer, start: number, end: number): string {
  if (end - start > 6) return bytes.toString("latin1", start, end);
  let key = 0;
  for (let i = start; i < end; i++) key = key * 256 + bytes[i];
  let name = shortNames.get(key);
  if (name === undefined) {
    name = bytes.toString("latin1", start, end);
    if (shortNames.size < SHORT_NAMES_LIMIT) shortNames.set(key, name);
  }
  return name;
}

const NL = 0x0a;
const CR = 0x0d;
const TAB = 0x09;
const LT = 0x3c;

/**
 * What is wrong with a line of vertical input: one wording for the reader (here), the
 * chunker, the paragraph pass and clean. `tag` is the document tag (`doc` unless the
 * paragraph pass is given another).
 */
export const badLine = {
  crlf: "CRLF line end: vertical files use LF (convert with dos2unix)",
  utf8: "invalid UTF-8",
  tokenOutside: (tag = "doc") => `token outside <${tag}>`,
  emptyDoc: (tag = "doc") => `empty <${tag}/> element`,
  strayClose: (tag = "doc") => `</${tag}> without an open <${tag}>`,
  /** `openedAt`: the open document's line (or a placeholder for it). */
  nestedOpen: (openedAt: number | string, tag = "doc") => `<${tag}> inside the <${tag}> opened at line ${openedAt} (missing </${tag}>)`,
  neverClosed: (tag = "doc") => `<${tag}> is never closed (missing </${tag}>)`,
  /** A line the chunker counts as a document start that is no tag: cut, or its `>` lost. */
  openUnclosed: (tag = "doc") => `<${tag} line without its closing ">"`,
};

/** The first tab in [from, end), or end (a loop: Buffer.indexOf would search past the line). */
function tabOrEnd(bytes: Buffer, from: number, end: number): number {
  let i = from;
  while (i < end && bytes[i] !== TAB) i++;
  return i;
}

/** Decodes a token's bytes (the chunk is valid UTF-8, checked before). */
export const stringToken: TokenReader<string> = (bytes, start, end) => bytes.toString("utf8", start, end);

/**
 * Parses one chunk and calls `onDoc` for each document, in order, with its tokens as
 * strings. See `parseChunkWith`.
 */
export function parseChunk(chunk: Chunk, opts: ReaderOptions, warnings: ReaderWarnings, onDoc: (doc: VerticalDoc) => void): void {
  parseChunkWith(chunk, opts, warnings, stringToken, onDoc);
}

/**
 * Parses one chunk on its bytes and calls `onDoc` for each document, in order; each token
 * line's column value becomes `readToken(bytes, start, end)`. See `scanChunk`.
 */
export function parseChunkWith<T>(
  chunk: Chunk,
  opts: ReaderOptions,
  warnings: ReaderWarnings,
  readToken: TokenReader<T>,
  onDoc: (doc: Doc<T>) => void,
): void {
  let doc: Doc<T> = { ordinal: 0, id: "", line: 0, tokens: [] };
  scanChunk(chunk, opts, warnings, {
    open: (ordinal, id, line, part) => {
      doc = part === undefined ? { ordinal, id, line, tokens: [] } : { ordinal, id, line, tokens: [], part };
    },
    token: (bytes, start, end) => {
      doc.tokens.push(readToken(bytes, start, end));
    },
    close: (paragraphs) => {
      if (paragraphs !== undefined) doc.paragraphs = paragraphs;
      onDoc(doc);
    },
  });
}

/**
 * What `scanChunk` reports, document by document: a sink that keeps only what it needs
 * (the count pass keeps no token list) spares an array per document.
 */
export interface DocSink {
  /** A document starts at its `<doc` line; `part`: its partition value, with `ReaderOptions.partitionAttr`. */
  open(ordinal: number, id: string, line: number, part?: string): void;
  /** A token line of the open document: its column's bytes [start, end). */
  token(bytes: Buffer, start: number, end: number): void;
  /**
   * Optional, for column 0: a token line of the open document whose token starts at `start`;
   * the sink reads it up to the first tab or newline before `limit` and returns where it
   * stopped, so that the line's bytes are read once.
   */
  tokenAt?(bytes: Buffer, start: number, limit: number): number;
  /**
   * Optional, for column 0: the token lines of the open document from `start` (the start of
   * a line that is not empty), as many as the sink takes in one go, and structure lines
   * among them that the sink reads as the parser would (elements other than the document's,
   * and `p` when paragraphs are recorded); it sets in `run` where it stopped (at the start of
   * a line it leaves to the parser, which reads that line as usual), how many lines and
   * token lines it read, and the elements it opened and left open. Each line it reads ends
   * with a newline, and not with CRLF.
   */
  tokenRun?(bytes: Buffer, start: number, run: TokenRun): void;
  /**
   * The open document ends; with `ReaderOptions.paragraphs`, the token ranges of its `<p>`
   * elements, flat as [start0, end0, start1, end1, …] (an unclosed `<p>` ends at the next
   * `<p>` or `</doc>`).
   */
  close(paragraphs: number[] | undefined): void;
}

/** Where a sink's `tokenRun` stopped and how many lines, and of them token lines, it read. */
export interface TokenRun {
  end: number;
  lines: number;
  tokens: number;
  /** The names of the elements it opened and left open, outermost first, as byte ranges [start, end) flat. */
  opened: number[];
}

/**
 * Parses one chunk on its bytes and reports its documents and tokens to `sink`, in order.
 * Structural errors that make the corpus ambiguous (text outside a document, nested or
 * unclosed `<doc>`, a stray `</doc>`, CRLF line ends, invalid UTF-8, a missing column) throw
 * an InputError naming the file and line; harmless irregularities are counted in `warnings`.
 */
export function scanChunk(chunk: Chunk, opts: ReaderOptions, warnings: ReaderWarnings, sink: DocSink): void {
  const file = displayName(chunk.file);
  checkUtf8(chunk);
  // A Buffer view: chunks arrive in workers as plain Uint8Arrays (structured clone).
  const bytes = Buffer.from(chunk.bytes.buffer, chunk.bytes.byteOffset, chunk.bytes.byteLength);
  const column = opts.column;
  const open: string[] = [];
  const tag = emptyTagShape();
  let docLine = -1;
  let docTokens = 0;
  let paragraphs: number[] | undefined;
  let paragraphStart = -1;
  const endParagraph = () => {
    if (paragraphStart >= 0) paragraphs?.push(paragraphStart, docTokens);
    paragraphStart = -1;
  };
  let ordinal = chunk.firstDoc;
  let lineNo = chunk.firstLine - 1;
  const n = bytes.length;
  // A byte-order mark at the start is not part of the first line (as TextDecoder drops it).
  let pos = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const tokenAt = column === 0 && sink.tokenAt !== undefined;
  const tokenRun = column === 0 && sink.tokenRun !== undefined;
  const run: TokenRun = { end: 0, lines: 0, tokens: 0, opened: [] };
  while (pos < n) {
    if (tokenRun && docLine >= 0 && bytes[pos] !== NL) {
      sink.tokenRun!(bytes, pos, run);
      lineNo += run.lines;
      docTokens += run.tokens;
      for (let k = 0; k < run.opened.length; k += 2) open.push(tagName(bytes, run.opened[k], run.opened[k + 1]));
      // The line it left goes on to tokenAt or the line scan.
      if (run.lines > 0) {
        pos = run.end;
        continue;
      }
    }
    if (tokenAt && docLine >= 0 && bytes[pos] !== LT && bytes[pos] !== NL) {
      let end = sink.tokenAt!(bytes, pos, n);
      while (end < n && bytes[end] !== NL) end++;
      lineNo++;
      if (bytes[end - 1] === CR) {
        throw new InputError(file, lineNo, badLine.crlf);
      }
      docTokens++;
      pos = end + 1;
      continue;
    }
    // A loop rather than Buffer.indexOf: most lines are a few bytes, shorter than a native
    // call; it notes the first tab too, so the word column needs no second scan.
    let end = pos;
    let tab = -1;
    for (; end < n; end++) {
      const c = bytes[end];
      if (c === NL) break;
      if (c === TAB && tab < 0) tab = end;
    }
    const start = pos;
    pos = end + 1;
    lineNo++;
    if (end === start) {
      warnings.emptyLine++;
      continue;
    }
    if (bytes[end - 1] === CR) {
      throw new InputError(file, lineNo, badLine.crlf);
    }
    if (bytes[start] !== LT || !readTag(bytes, start, end, tag)) {
      // Read as a token, it would leave the chunker's count of documents one more than ours.
      if (bytes[start] === LT && isDocStartAt(bytes, start)) throw new InputError(file, lineNo, badLine.openUnclosed());
      if (docLine < 0) throw new InputError(file, lineNo, badLine.tokenOutside());
      // The column's bytes: between the column-th tab and the next one.
      let from = start;
      let to = tab < 0 ? end : tab;
      for (let c = 0; c < column; c++) {
        if (to === end) {
          throw new InputError(file, lineNo, `token line has ${c + 1} column(s), --column ${column} needs ${column + 1}`);
        }
        from = to + 1;
        to = tabOrEnd(bytes, from, end);
      }
      sink.token(bytes, from, to);
      docTokens++;
      continue;
    }
    const { closing, selfClosing } = tag;
    const name = tag.name ?? tagName(bytes, tag.nameStart, tag.nameEnd);
    if (name === "doc") {
      if (selfClosing) throw new InputError(file, lineNo, badLine.emptyDoc());
      if (closing) {
        if (docLine < 0) throw new InputError(file, lineNo, badLine.strayClose());
        warnings.unclosedStructure += open.length;
        open.length = 0;
        endParagraph();
        sink.close(paragraphs);
        docLine = -1;
      } else {
        if (docLine >= 0) throw new InputError(file, lineNo, badLine.nestedOpen(docLine));
        const tagLine = bytes.toString("utf8", start, end);
        const where = { file, line: lineNo };
        const id = attributeValue(tagLine, opts.idAttr, where) ?? String(ordinal + 1);
        docLine = lineNo;
        docTokens = 0;
        paragraphs = opts.paragraphs ? [] : undefined;
        sink.open(ordinal++, id, lineNo, opts.partitionAttr === undefined ? undefined : partitionValue(tagLine, opts.partitionAttr, where));
      }
      continue;
    }
    if (selfClosing) continue; // <g/> and other empty elements carry no token
    if (docLine < 0) {
      warnings.tagOutsideDoc++;
      continue;
    }
    if (name === "p" && paragraphs !== undefined) {
      endParagraph();
      if (!closing) paragraphStart = docTokens;
    }
    if (!closing) {
      open.push(name);
    } else {
      const at = open.lastIndexOf(name);
      if (at === -1) warnings.strayClosingTag++;
      else {
        warnings.unclosedStructure += open.length - 1 - at;
        open.length = at;
      }
    }
  }
  if (docLine >= 0) throw new InputError(file, docLine, badLine.neverClosed());
}

/**
 * A run of whole lines of one input file that starts at a `<doc` line (or at the file's
 * start) and ends just before the next chunk's `<doc` line. Chunks are the unit of work of
 * the preparatory phase; their boundaries depend only on the input bytes and `targetBytes`,
 * never on the number of workers, so every output is independent of parallelism.
 */
export interface Chunk {
  /** 0-based position of the chunk in the corpus. */
  index: number;
  /** Input path as given (`-` for stdin); `file` is its display name. */
  file: string;
  /** 1-based line number of the chunk's first line within its file. */
  firstLine: number;
  /** 0-based ordinal (in the whole corpus) of the first `<doc` that starts in this chunk. */
  firstDoc: number;
  /** Number of lines starting with `<doc` in the chunk. */
  docCount: number;
  /** Its own memory (chunkCorpus's chunks but skipped ones): transferable (ownedBytes). */
  bytes: Buffer;
  /**
   * True for a document skipped for its size (`--oversize skip`): `bytes` are its `<doc` line
   * and `</doc>` alone, so that it keeps its ordinal and id but has no content.
   */
  skipped?: true;
}
