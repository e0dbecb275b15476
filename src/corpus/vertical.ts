import { InputError } from "../util/errors.js";
import { displayName } from "./open-input.js";
import type { Chunk } from "./chunker.js";

/** One document of a vertical corpus, as the feature extractors need it. */
export interface VerticalDoc {
  /** 0-based position of the document in the whole corpus. */
  ordinal: number;
  /** Value of the id attribute of `<doc>`, or the 1-based ordinal when it has none. */
  id: string;
  /** Line number of the `<doc` line within its file. */
  line: number;
  /** The chosen positional attribute of every token line, in order. */
  tokens: string[];
  /**
   * Only with `ReaderOptions.paragraphs`: token ranges of the `<p>` elements, flat as
   * [start0, end0, start1, end1, …] (an unclosed `<p>` ends at the next `<p>` or `</doc>`).
   */
  paragraphs?: number[];
}

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

export interface ReaderOptions {
  /** Which tab-separated column of a token line is the term (0 = word). */
  column: number;
  /** Attribute of `<doc>` that names the document. */
  idAttr: string;
  /** Record the `<p>` token ranges of each document (the paragraph methods need them). */
  paragraphs?: boolean;
}

// A structure line: `<name attr…>`, `</name>` or `<name…/>`. Anything else is a token, so a
// token such as `<` or `<3` is not mistaken for a tag. The attribute part is matched lazily so
// that the `/` of `<ref target="x"/>` or `<g />` marks the tag as empty, and it may contain `>`
// (as in `title="a > b"`): only the `>` that ends the line closes the tag.
export const TAG = /^<(\/?)([A-Za-z_][\w.:-]*)(?:\s[\s\S]*?)?(\/?)>$/;

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Decodes strictly; on invalid UTF-8, names the first offending line. */
function decodeChunk(chunk: Chunk): string {
  try {
    return decoder.decode(chunk.bytes);
  } catch {
    let start = 0;
    let line = chunk.firstLine;
    for (;;) {
      let end = chunk.bytes.indexOf(0x0a, start);
      if (end === -1) end = chunk.bytes.length;
      try {
        decoder.decode(chunk.bytes.subarray(start, end));
      } catch {
        throw new InputError(displayName(chunk.file), line, "invalid UTF-8");
      }
      start = end + 1;
      line++;
    }
  }
}

export function attributeValue(tagLine: string, name: string): string | undefined {
  const re = new RegExp(`\\s${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}=(?:"([^"]*)"|'([^']*)')`);
  const m = re.exec(tagLine);
  return m ? (m[1] ?? m[2]) : undefined;
}

/**
 * Parses one chunk and calls `onDoc` for each document, in order. Structural errors that
 * make the corpus ambiguous (text outside a document, nested or unclosed `<doc>`, a stray
 * `</doc>`, CRLF line ends, invalid UTF-8, a missing column) throw an InputError naming the
 * file and line; harmless irregularities are counted in `warnings`.
 */
export function parseChunk(
  chunk: Chunk,
  opts: ReaderOptions,
  warnings: ReaderWarnings,
  onDoc: (doc: VerticalDoc) => void,
): void {
  const file = displayName(chunk.file);
  const text = decodeChunk(chunk);
  const open: string[] = [];
  let doc: VerticalDoc | null = null;
  let paragraphStart = -1;
  const endParagraph = (d: VerticalDoc) => {
    if (paragraphStart >= 0) d.paragraphs?.push(paragraphStart, d.tokens.length);
    paragraphStart = -1;
  };
  let ordinal = chunk.firstDoc;
  let lineNo = chunk.firstLine - 1;
  let pos = 0;
  const n = text.length;
  while (pos < n) {
    let end = text.indexOf("\n", pos);
    if (end === -1) end = n;
    const line = text.slice(pos, end);
    pos = end + 1;
    lineNo++;
    if (line.length > 0 && line.charCodeAt(line.length - 1) === 13) {
      throw new InputError(file, lineNo, "CRLF line end: vertical files use LF (convert with dos2unix)");
    }
    if (line.length === 0) {
      warnings.emptyLine++;
      continue;
    }
    const tag = line.charCodeAt(0) === 60 ? TAG.exec(line) : null;
    if (tag === null) {
      if (doc === null) throw new InputError(file, lineNo, "token outside <doc>");
      let value = line;
      if (opts.column > 0 || line.includes("\t")) {
        const cols = line.split("\t");
        if (cols.length <= opts.column) {
          throw new InputError(file, lineNo, `token line has ${cols.length} column(s), --column ${opts.column} needs ${opts.column + 1}`);
        }
        value = cols[opts.column];
      }
      doc.tokens.push(value);
      continue;
    }
    const [, closing, name, selfClosing] = tag;
    if (name === "doc") {
      if (selfClosing) throw new InputError(file, lineNo, "empty <doc/> element");
      if (closing) {
        if (doc === null) throw new InputError(file, lineNo, "</doc> without an open <doc>");
        warnings.unclosedStructure += open.length;
        open.length = 0;
        endParagraph(doc);
        onDoc(doc);
        doc = null;
      } else {
        if (doc !== null) throw new InputError(file, lineNo, `<doc> inside the <doc> opened at line ${doc.line} (missing </doc>)`);
        const id = attributeValue(line, opts.idAttr) ?? String(ordinal + 1);
        doc = { ordinal: ordinal++, id, line: lineNo, tokens: [] };
        if (opts.paragraphs) doc.paragraphs = [];
      }
      continue;
    }
    if (selfClosing) continue; // <g/> and other empty elements carry no token
    if (doc === null) {
      warnings.tagOutsideDoc++;
      continue;
    }
    if (name === "p" && doc.paragraphs !== undefined) {
      endParagraph(doc);
      if (!closing) paragraphStart = doc.tokens.length;
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
  if (doc !== null) throw new InputError(file, doc.line, "<doc> is never closed (missing </doc>)");
}
