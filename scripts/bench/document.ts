import type { Random } from "./random.js";
import type { ZipfSampler } from "./zipf.js";

/**
 * A generated document as token codes: a code ≥ 0 is a word (its Zipf rank); negative codes
 * are structure and punctuation, rendered by renderDocument.
 */
export const PARAGRAPH = -1;
export const SENTENCE_END = -2;
export const COMMA = -3;
/** Codes ≤ NUMBER_BASE are numbers: NUMBER_BASE − k renders as k. */
export const NUMBER_BASE = -100;

export interface ShapeOptions {
  /** Median document length in tokens (the log-normal's e^μ). */
  medianTokens: number;
  /** σ of ln(length). */
  sigma: number;
}

/** What every generated corpus shape sets: size, seed, vocabulary and document lengths. */
export interface CorpusText extends ShapeOptions {
  docs: number;
  seed: number;
  /** Distinct word forms, drawn by a Zipf law of exponent `zipf`. */
  vocab: number;
  zipf: number;
}

/**
 * A fresh document: length ~ LogNormal(ln median, σ) (clamped to [20, 20·median]), sentences
 * of 6–24 words with an occasional comma or number, paragraphs of 2–6 sentences.
 */
export function randomDocument(random: Random, zipf: ZipfSampler, shape: ShapeOptions): Int32Array {
  const target = Math.max(20, Math.min(20 * shape.medianTokens, Math.round(random.logNormal(Math.log(shape.medianTokens), shape.sigma))));
  const codes: number[] = [];
  let tokens = 0;
  while (tokens < target) {
    const sentences = 2 + random.below(5);
    for (let s = 0; s < sentences && tokens < target; s++) {
      const words = 6 + random.below(19);
      for (let w = 0; w < words; w++) {
        const roll = random.uniform();
        if (roll < 0.06 && w > 0) codes.push(COMMA);
        else if (roll < 0.08) codes.push(NUMBER_BASE - random.below(3000));
        else codes.push(zipf.sample(random));
        tokens++;
      }
      codes.push(SENTENCE_END);
      tokens++;
    }
    codes.push(PARAGRAPH);
  }
  return Int32Array.from(codes);
}

/**
 * A very short document (a web page's stub): one sentence of 8 … maxTokens−1 words and its
 * full stop (at least 8 words, so that two of them are rarely the same by chance).
 */
export function shortDocument(random: Random, zipf: ZipfSampler, maxTokens: number): Int32Array {
  const words = 8 + random.below(maxTokens - 8);
  const codes = new Int32Array(words + 2);
  for (let w = 0; w < words; w++) codes[w] = zipf.sample(random);
  codes[words] = SENTENCE_END;
  codes[words + 1] = PARAGRAPH;
  return codes;
}

/**
 * A near-duplicate of `source`: each word is, with probability `rate`, substituted by a fresh
 * Zipf word, deleted, or followed by an inserted word (one third each). Structure codes are
 * kept, so the copy has the same paragraphs.
 */
export function editDocument(source: Int32Array, rate: number, random: Random, zipf: ZipfSampler): Int32Array {
  if (rate === 0) return source.slice();
  const out: number[] = [];
  for (const code of source) {
    if (code < 0 || random.uniform() >= rate) {
      out.push(code);
      continue;
    }
    const op = random.below(3);
    if (op === 0) out.push(zipf.sample(random));
    else if (op === 2) out.push(code, zipf.sample(random));
  }
  return Int32Array.from(out);
}

const ENCODER = new TextEncoder();
const ascii = (text: string): Uint8Array => ENCODER.encode(text);
const GLUE_COMMA = ascii("<g/>\n,\n");
const GLUE_STOP = ascii("<g/>\n.\n</s>\n");
const OPEN_S = ascii("<s>\n");
const CLOSE_P = ascii("</p>\n");
const OPEN_PS = ascii("<p>\n<s>\n");
const CLOSE_DOC = ascii("</doc>\n");
/** The most bytes a code other than a word writes: a full stop closing a sentence and opening the next (a number's digits are fewer). */
const PIECE_BYTES = GLUE_STOP.length + OPEN_S.length;

/**
 * Renders documents as vertical text into byte blocks: `<doc id>`, `<p>`/`<s>` structure, one
 * token per line, the first word of a sentence capitalised, and `<g/>` (glue) before each comma
 * and full stop. Every word form is encoded to UTF-8 once, in lower and capitalised form, so a
 * token costs a few byte copies instead of a string concatenation and a re-encoding.
 */
export class VerticalRenderer {
  /** Form 2r is word r with its newline, form 2r+1 the same capitalised; bytes [start[f], start[f+1]). */
  private readonly forms: Uint8Array;
  private readonly start: Int32Array;
  private readonly longestForm: number;
  private block: Uint8Array;
  private at = 0;

  constructor(words: readonly string[], private readonly blockBytes = 1 << 20) {
    const encoded = words.flatMap((w) => [ENCODER.encode(w + "\n"), ENCODER.encode(w.charAt(0).toUpperCase() + w.slice(1) + "\n")]);
    this.start = new Int32Array(encoded.length + 1);
    let total = 0;
    let longest = 0;
    encoded.forEach((form, f) => {
      this.start[f] = total;
      total += form.length;
      longest = Math.max(longest, form.length);
    });
    this.start[encoded.length] = total;
    this.forms = new Uint8Array(total);
    encoded.forEach((form, f) => this.forms.set(form, this.start[f]));
    this.longestForm = longest;
    this.block = new Uint8Array(blockBytes);
  }

  /** Appends one document. */
  add(id: string, codes: Int32Array): void {
    const header = `<doc id="${id}">\n<p>\n<s>\n`;
    this.reserve(header.length * 3 + codes.length * Math.max(this.longestForm, PIECE_BYTES) + CLOSE_DOC.length);
    this.at += ENCODER.encodeInto(header, this.block.subarray(this.at)).written;
    let sentenceStart = true;
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i];
      if (c >= 0) {
        this.form(2 * c + (sentenceStart ? 1 : 0));
        sentenceStart = false;
      } else if (c === COMMA) this.put(GLUE_COMMA);
      else if (c === SENTENCE_END) {
        this.put(GLUE_STOP);
        sentenceStart = true;
        if (codes[i + 1] !== PARAGRAPH && i + 1 < codes.length) this.put(OPEN_S);
      } else if (c === PARAGRAPH) {
        this.put(CLOSE_P);
        if (i + 1 < codes.length) this.put(OPEN_PS);
      } else this.number(NUMBER_BASE - c);
    }
    this.put(CLOSE_DOC);
  }

  /** Bytes rendered since the last take. */
  get size(): number {
    return this.at;
  }

  /** The rendered bytes; the renderer goes on in a fresh block (the caller may keep these). */
  take(): Uint8Array {
    const out = this.block.subarray(0, this.at);
    this.block = new Uint8Array(Math.max(this.blockBytes, this.block.length));
    this.at = 0;
    return out;
  }

  private reserve(bytes: number): void {
    if (this.at + bytes <= this.block.length) return;
    const grown = new Uint8Array(Math.max(this.block.length * 2, this.at + bytes));
    grown.set(this.block.subarray(0, this.at));
    this.block = grown;
  }

  private form(f: number): void {
    const forms = this.forms;
    const block = this.block;
    let at = this.at;
    for (let b = this.start[f], end = this.start[f + 1]; b < end; b++) block[at++] = forms[b];
    this.at = at;
  }

  private put(piece: Uint8Array): void {
    this.block.set(piece, this.at);
    this.at += piece.length;
  }

  private number(k: number): void {
    const digits = String(k);
    for (let i = 0; i < digits.length; i++) this.block[this.at++] = digits.charCodeAt(i);
    this.block[this.at++] = 10;
  }
}
