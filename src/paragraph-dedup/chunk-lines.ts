import { isUtf8 } from "node:buffer";
import { displayName } from "../corpus/open-input.js";
import { TAG } from "../corpus/vertical.js";
import { InputError } from "../util/errors.js";

/** What a line of the corpus is, for the paragraph pass. */
export const enum LineKind {
  Token = 0,
  /** A structure tag, `<g/>` or an empty line inside a document. */
  Other = 1,
  DocOpen = 2,
  DocClose = 3,
  /** A tag or empty line between documents: always kept, never marked. */
  Outside = 4,
}

/** The part of a chunk the paragraph pass works on: where the chunk's bytes come from. */
export interface ChunkSource {
  file: string;
  firstLine: number;
  bytes: Uint8Array;
}

/** Harmless irregularities, counted (as the core reader does) and reported. */
export interface LineWarnings {
  emptyLine: number;
  tagOutsideDoc: number;
}

/**
 * The line structure of one chunk. A unit ("segment", onion's paragraph) starts at a
 * document's open tag, at an open `<structure>` tag and at the line after a `</structure>`
 * tag; the units of a document are consecutive and every line of the document belongs to one.
 */
export interface ChunkLayout {
  lineCount: number;
  /** Byte offset of each line's first byte (after a UTF-8 BOM on the file's first line). */
  lineStart: Int32Array;
  /** Byte offset of each line's end (its `\n`, or the end of the chunk). */
  lineEnd: Int32Array;
  kind: Uint8Array;
  /** Unit of each line inside a document; -1 outside documents. */
  lineSeg: Int32Array;
  /** Tokens per unit. */
  segTokens: Uint32Array;
  /** First unit of each document, plus one entry past the last. */
  docFirstSeg: Int32Array;
  docCount: number;
  warnings: LineWarnings;
}

const NL = 0x0a;
const CR = 0x0d;
const LT = 0x3c;

const NAME_FIRST = new Uint8Array(128);
const NAME_REST = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  NAME_FIRST[c] = /[A-Za-z_]/.test(ch) ? 1 : 0;
  NAME_REST[c] = /[\w.:-]/.test(ch) ? 1 : 0;
}

/**
 * The common attribute-less tags (`<s>`, `</p>`, `<g/>`) parsed from the bytes, in the shape
 * TAG.exec returns; null when the line needs the full TAG regex (or is no tag).
 */
function simpleTag(bytes: Uint8Array, pos: number, end: number): [string, string, string, string] | null {
  if (end - pos < 3 || bytes[end - 1] !== 0x3e) return null;
  let i = pos + 1;
  const closing = bytes[i] === 0x2f;
  if (closing) i++;
  const nameStart = i;
  if (i >= end || bytes[i] >= 128 || NAME_FIRST[bytes[i]] === 0) return null;
  i++;
  while (i < end - 1 && bytes[i] < 128 && NAME_REST[bytes[i]] === 1) i++;
  const nameEnd = i;
  const selfClosing = bytes[i] === 0x2f && i === end - 2;
  if (!(i === end - 1 || selfClosing)) return null;
  let name = "";
  for (let k = nameStart; k < nameEnd; k++) name += String.fromCharCode(bytes[k]);
  return ["", closing ? "/" : "", name, selfClosing ? "/" : ""];
}

function findInvalidUtf8Line(src: ChunkSource): never {
  let start = 0;
  let line = src.firstLine;
  for (;;) {
    let end = Buffer.from(src.bytes.buffer, src.bytes.byteOffset, src.bytes.byteLength).indexOf(NL, start);
    if (end === -1) end = src.bytes.length;
    if (!isUtf8(src.bytes.subarray(start, end))) throw new InputError(displayName(src.file), line, "invalid UTF-8");
    start = end + 1;
    line++;
  }
}

/**
 * Splits a chunk into lines and units, validating as the core reader does: text outside a
 * document, nested or unclosed documents, a stray closing document tag, an empty document
 * element, CRLF line ends and invalid UTF-8 throw an InputError naming file and line.
 * The result depends on the bytes and options only, so every pass that scans the same chunk
 * numbers its units the same way.
 */
export function scanChunkLines(src: ChunkSource, structure: string, docTag: string): ChunkLayout {
  const file = displayName(src.file);
  const bytes = Buffer.from(src.bytes.buffer, src.bytes.byteOffset, src.bytes.byteLength);
  if (!isUtf8(bytes)) findInvalidUtf8Line(src);
  const n = bytes.length;
  // Plain loops over the bytes: a native indexOf call per (short) line costs more.
  let lineCount = 0;
  for (let i = 0; i < n; i++) if (bytes[i] === NL) lineCount++;
  if (n > 0 && bytes[n - 1] !== NL) lineCount++;
  const lineStart = new Int32Array(lineCount);
  const lineEnd = new Int32Array(lineCount);
  const kind = new Uint8Array(lineCount);
  const lineSeg = new Int32Array(lineCount);
  const segTokens: number[] = [];
  const docFirstSeg: number[] = [];
  const warnings: LineWarnings = { emptyLine: 0, tagOutsideDoc: 0 };

  let pos = src.firstLine === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let inDoc = false;
  let docLine = 0;
  let seg = -1;
  let newSegNext = false;
  for (let li = 0; li < lineCount; li++) {
    let end = pos;
    while (end < n && bytes[end] !== NL) end++;
    lineStart[li] = pos;
    lineEnd[li] = end;
    const lineNo = src.firstLine + li;
    if (end > pos && bytes[end - 1] === CR) throw new InputError(file, lineNo, "CRLF line end: vertical files use LF (convert with dos2unix)");
    let k: LineKind;
    if (end === pos) {
      k = inDoc ? LineKind.Other : LineKind.Outside;
      warnings.emptyLine++;
    } else {
      const tag = bytes[pos] === LT ? simpleTag(bytes, pos, end) ?? TAG.exec(bytes.toString("utf8", pos, end)) : null;
      if (tag === null) {
        if (!inDoc) throw new InputError(file, lineNo, `token outside <${docTag}>`);
        k = LineKind.Token;
      } else {
        const [, closing, name, selfClosing] = tag;
        if (name === docTag) {
          if (selfClosing) throw new InputError(file, lineNo, `empty <${docTag}/> element`);
          if (closing) {
            if (!inDoc) throw new InputError(file, lineNo, `</${docTag}> without an open <${docTag}>`);
            k = LineKind.DocClose;
          } else {
            if (inDoc) throw new InputError(file, lineNo, `<${docTag}> inside the <${docTag}> opened at line ${docLine} (missing </${docTag}>)`);
            k = LineKind.DocOpen;
          }
        } else if (!inDoc) {
          k = LineKind.Outside;
          warnings.tagOutsideDoc++;
        } else {
          k = LineKind.Other;
          if (name === structure && !selfClosing) {
            if (closing) {
              lineSeg[li] = seg;
              kind[li] = k;
              newSegNext = true;
              pos = end + 1;
              continue;
            }
            newSegNext = true;
          }
        }
      }
    }
    kind[li] = k;
    if (k === LineKind.DocOpen) {
      inDoc = true;
      docLine = lineNo;
      docFirstSeg.push(segTokens.length);
      newSegNext = true;
    }
    if (k === LineKind.Outside) {
      lineSeg[li] = -1;
    } else {
      // A closing document tag stays in the document's last unit, as in onion.
      if (newSegNext && k !== LineKind.DocClose) {
        seg = segTokens.length;
        segTokens.push(0);
      }
      newSegNext = false;
      lineSeg[li] = seg;
      if (k === LineKind.Token) segTokens[seg]++;
      if (k === LineKind.DocClose) inDoc = false;
    }
    pos = end + 1;
  }
  if (inDoc) throw new InputError(file, docLine, `<${docTag}> is never closed (missing </${docTag}>)`);
  docFirstSeg.push(segTokens.length);
  return {
    lineCount,
    lineStart,
    lineEnd,
    kind,
    lineSeg,
    segTokens: Uint32Array.from(segTokens),
    docFirstSeg: Int32Array.from(docFirstSeg),
    docCount: docFirstSeg.length - 1,
    warnings,
  };
}
