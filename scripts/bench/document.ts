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

/**
 * The vertical text of a document: `<doc id>`, `<p>`/`<s>` structure, one token per line,
 * the first word of a sentence capitalised, and `<g/>` (glue) before each comma and full stop.
 */
export function renderDocument(id: string, codes: Int32Array, words: readonly string[]): string {
  let out = `<doc id="${id}">\n<p>\n<s>\n`;
  let sentenceStart = true;
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i];
    if (c >= 0) {
      const w = words[c];
      out += (sentenceStart ? w.charAt(0).toUpperCase() + w.slice(1) : w) + "\n";
      sentenceStart = false;
    } else if (c === COMMA) out += "<g/>\n,\n";
    else if (c === SENTENCE_END) {
      out += "<g/>\n.\n</s>\n";
      sentenceStart = true;
      if (codes[i + 1] !== PARAGRAPH && i + 1 < codes.length) out += "<s>\n";
    } else if (c === PARAGRAPH) {
      out += "</p>\n";
      if (i + 1 < codes.length) out += "<p>\n<s>\n";
    } else out += `${NUMBER_BASE - c}\n`;
  }
  return out + "</doc>\n";
}
