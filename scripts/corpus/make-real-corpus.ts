/**
 * Turns a plain public-domain text into a vertical corpus with planted near-duplicates.
 *
 *   node dist/scripts/corpus/make-real-corpus.js --input kjv.txt --format kjv \
 *     --docs 3000 --dup-share 0.2 --seed 1 \
 *     --out data-samples/kjv-3000.vert.gz --truth data-samples/kjv-3000.truth.tsv
 *
 * Input formats:
 *   kjv    one verse per line as printed by Debian's `bible -f gen1:1-rev22:21`
 *          (`Ge1:1 In the beginning …`); a paragraph is a run of 2–6 consecutive verses
 *          of one chapter (the lengths are drawn from the seeded generator).
 *   plain  paragraphs separated by blank lines; the lines of a paragraph are joined.
 *   `--input -` reads standard input.
 *
 * Documents are consecutive text: paragraphs are taken in order until the document reaches
 * a target length drawn from a log-normal distribution (median `--median-tokens`, log-sd
 * `--sigma`). Sentences are split after `.`, `?` or `!` (plus closing quotes or brackets).
 * Tokens: words (letters/digits, with inner apostrophes and hyphens), numbers, and every
 * other non-space character on its own; a `<g/>` line precedes a token that touched the
 * previous one in the text (no space between them).
 *
 * Planted near-duplicates: a share `--dup-share` of all documents are copies of earlier
 * originals (sources drawn uniformly with replacement, so some originals get several
 * copies), edited at the rates of `--rates` in turn. At rate r each paragraph is dropped
 * with probability r/2 (never all of them), then every token is edited with probability r:
 * half substitutions, a quarter deletions, a quarter insertions (replacement and inserted
 * tokens are drawn from the token stream of the whole text, so they follow its
 * frequencies). Each copy is placed at a uniformly drawn position after its source.
 * Document ids (`d00001` …) follow the output order and reveal nothing about copies.
 * The truth file lists `copy_id  source_id  edit_rate` (tab separated, with a header).
 *
 * The output is plain, gzip (`.gz`) or zstd (`.zst`) by the name of `--out`. Same input,
 * options and seed give byte-identical outputs.
 */
import { readFileSync, writeFileSync, renameSync } from "node:fs";
import { gzipSync, constants as zc } from "node:zlib";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { compress as zstdCompress } from "zstd-napi";

// ---------------------------------------------------------------- seeded randomness

/** sfc32: small, fast, well-distributed; state from a 32-bit seed via splitmix32. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  constructor(seed: number) {
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 0x1_0000_0000;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

// ---------------------------------------------------------------- tokenisation

export interface Token {
  text: string;
  /** No space between this token and the previous one (a `<g/>` line precedes it). */
  glue: boolean;
}
export type Sentence = Token[];
export type Paragraph = Sentence[];
export interface Doc {
  paragraphs: Paragraph[];
}

const TOKEN_RE = /[\p{L}\p{N}\p{M}]+(?:['’\-][\p{L}\p{N}\p{M}]+)*|[^\s\p{L}\p{N}\p{M}]/gu;
const SENTENCE_END = new Set([".", "?", "!"]);
const CLOSERS = new Set(['"', "'", "’", "”", ")", "]", "»"]);

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let prevEnd = -1;
  for (const m of text.matchAll(TOKEN_RE)) {
    const start = m.index ?? 0;
    out.push({ text: m[0], glue: out.length > 0 && start === prevEnd });
    prevEnd = start + m[0].length;
  }
  return out;
}

/** Splits after `.?!` (and any closing quotes or brackets right after them). */
export function splitSentences(tokens: Token[]): Sentence[] {
  const out: Sentence[] = [];
  let cur: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    cur.push(tokens[i]);
    if (!SENTENCE_END.has(tokens[i].text)) continue;
    while (i + 1 < tokens.length && CLOSERS.has(tokens[i + 1].text) && tokens[i + 1].glue) cur.push(tokens[++i]);
    out.push(cur);
    cur = [];
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

function paragraphOf(text: string): Paragraph | null {
  const tokens = tokenize(text);
  if (tokens.length === 0) return null;
  tokens[0] = { ...tokens[0], glue: false };
  return splitSentences(tokens);
}

/** Paragraph texts of the input, in order. */
export function sourceParagraphs(text: string, format: "kjv" | "plain", rng: Rng): string[] {
  const paras: string[] = [];
  if (format === "plain") {
    for (const block of text.split(/\n[ \t]*\n/)) {
      const joined = block.split("\n").map((l) => l.trim()).filter((l) => l.length > 0).join(" ");
      if (joined.length > 0) paras.push(joined);
    }
    return paras;
  }
  const VERSE = /^(\d?[A-Za-z]+)(\d+):(\d+)\s+(.*)$/;
  let chapter = "";
  let cur: string[] = [];
  let want = 0;
  const flush = (): void => {
    if (cur.length > 0) paras.push(cur.join(" "));
    cur = [];
  };
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.length === 0) continue;
    const m = VERSE.exec(line);
    if (m === null) throw new Error(`--format kjv: not a verse line: ${line.slice(0, 60)}`);
    const ch = `${m[1]}${m[2]}`;
    if (ch !== chapter || cur.length >= want) {
      flush();
      chapter = ch;
      want = 2 + rng.int(5);
    }
    cur.push(m[4]);
  }
  flush();
  return paras;
}

// ---------------------------------------------------------------- documents

function tokenCount(p: Paragraph): number {
  let n = 0;
  for (const s of p) n += s.length;
  return n;
}

export function docTokens(d: Doc): number {
  let n = 0;
  for (const p of d.paragraphs) n += tokenCount(p);
  return n;
}

/** Consecutive documents of log-normal target lengths, until `count` or the text ends. */
export function buildOriginals(paras: Paragraph[], count: number, median: number, sigma: number, rng: Rng): Doc[] {
  const docs: Doc[] = [];
  let at = 0;
  while (docs.length < count && at < paras.length) {
    const target = Math.max(20, Math.round(median * Math.exp(sigma * rng.normal())));
    const doc: Doc = { paragraphs: [] };
    let n = 0;
    while (at < paras.length) {
      const len = tokenCount(paras[at]);
      // Take the next paragraph while that brings the length closer to the target.
      if (doc.paragraphs.length > 0 && n + len / 2 > target) break;
      doc.paragraphs.push(paras[at++]);
      n += len;
    }
    docs.push(doc);
  }
  return docs;
}

function cloneToken(t: Token): Token {
  return { text: t.text, glue: t.glue };
}

/** A copy of `src` edited at rate `rate` (see the header comment). */
export function editDoc(src: Doc, rate: number, pool: Token[], rng: Rng): Doc {
  let paras = src.paragraphs;
  if (rate > 0 && paras.length > 1) {
    const kept = paras.filter(() => rng.next() >= rate / 2);
    paras = kept.length > 0 ? kept : [paras[rng.int(paras.length)]];
  }
  const draw = (): Token => cloneToken(pool[rng.int(pool.length)]);
  const out: Paragraph[] = [];
  for (const p of paras) {
    const np: Paragraph = [];
    for (const s of p) {
      const ns: Sentence = [];
      for (const t of s) {
        if (rate > 0 && rng.next() < rate) {
          const op = rng.next();
          if (op < 0.5) ns.push(draw()); // substitution
          else if (op < 0.75) continue; // deletion
          else ns.push(cloneToken(t), draw()); // insertion after the token
        } else ns.push(cloneToken(t));
      }
      if (ns.length > 0) np.push(ns);
    }
    if (np.length > 0) out.push(np);
  }
  if (out.length === 0) out.push([[draw()]]);
  return { paragraphs: out };
}

export function renderDoc(id: string, d: Doc, out: string[]): void {
  out.push(`<doc id="${id}">`);
  for (const p of d.paragraphs) {
    out.push("<p>");
    for (const s of p) {
      out.push("<s>");
      for (let i = 0; i < s.length; i++) {
        if (i > 0 && s[i].glue) out.push("<g/>");
        out.push(s[i].text); // never a tag: `<` is a token of its own
      }
      out.push("</s>");
    }
    out.push("</p>");
  }
  out.push("</doc>");
}

export interface CorpusOptions {
  docs: number;
  dupShare: number;
  rates: number[];
  median: number;
  sigma: number;
  seed: number;
  format: "kjv" | "plain";
}

export interface Corpus {
  vertical: string;
  truth: string;
  docs: number;
  originals: number;
  copies: number;
  tokens: number;
}

export function makeCorpus(text: string, o: CorpusOptions): Corpus {
  const rng = new Rng(o.seed);
  const paras: Paragraph[] = [];
  for (const t of sourceParagraphs(text, o.format, rng)) {
    const p = paragraphOf(t);
    if (p !== null) paras.push(p);
  }
  const pool: Token[] = [];
  for (const p of paras) for (const s of p) for (const t of s) pool.push(t);
  const wantCopies = Math.round(o.docs * o.dupShare);
  const originals = buildOriginals(paras, o.docs - wantCopies, o.median, o.sigma, rng);
  if (originals.length < o.docs - wantCopies) {
    process.stderr.write(`warning: the text ran out after ${originals.length} original documents\n`);
  }
  const nCopies = Math.round((originals.length * o.dupShare) / (1 - o.dupShare));
  interface Entry { key: number; doc: Doc; source: number; rate: number; orig: number }
  const entries: Entry[] = originals.map((doc, i) => ({ key: i, doc, source: -1, rate: 0, orig: i }));
  for (let c = 0; c < nCopies; c++) {
    const src = rng.int(originals.length);
    const rate = o.rates[c % o.rates.length];
    const doc = editDoc(originals[src], rate, pool, rng);
    // Strictly after the source: a key in (src, n) among the originals' integer keys.
    const key = src + 0.5 + rng.next() * (originals.length - src - 0.5);
    entries.push({ key, doc, source: src, rate, orig: -1 });
  }
  const order = entries.map((_, i) => i).sort((x, y) => entries[x].key - entries[y].key || x - y);
  const idOfOrig = new Map<number, string>();
  const width = Math.max(5, String(order.length).length);
  const lines: string[] = [];
  const truth: string[] = ["copy_id\tsource_id\tedit_rate"];
  let tokens = 0;
  const pending: { id: string; src: number; rate: number }[] = [];
  order.forEach((e, pos) => {
    const id = `d${String(pos + 1).padStart(width, "0")}`;
    const entry = entries[e];
    if (entry.orig >= 0) idOfOrig.set(entry.orig, id);
    else pending.push({ id, src: entry.source, rate: entry.rate });
    renderDoc(id, entry.doc, lines);
    tokens += docTokens(entry.doc);
  });
  for (const p of pending) {
    const srcId = idOfOrig.get(p.src);
    if (srcId === undefined || srcId >= p.id) throw new Error("internal: copy placed before its source");
    truth.push(`${p.id}\t${srcId}\t${p.rate}`);
  }
  return {
    vertical: lines.join("\n") + "\n",
    truth: truth.join("\n") + "\n",
    docs: order.length,
    originals: originals.length,
    copies: nCopies,
    tokens,
  };
}

function encode(path: string, text: string): Buffer {
  const raw = Buffer.from(text, "utf8");
  if (path.endsWith(".gz")) return gzipSync(raw, { level: 9, memLevel: 9, strategy: zc.Z_DEFAULT_STRATEGY });
  if (path.endsWith(".zst") || path.endsWith(".zstd")) return zstdCompress(raw, { compressionLevel: 19 });
  return raw;
}

function writeAtomic(path: string, data: Buffer | string): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

function main(): void {
  const { values } = parseArgs({
    options: {
      input: { type: "string" },
      format: { type: "string", default: "kjv" },
      docs: { type: "string", default: "3000" },
      "dup-share": { type: "string", default: "0.2" },
      rates: { type: "string", default: "0,0.01,0.02,0.05,0.1,0.2,0.4" },
      "median-tokens": { type: "string", default: "300" },
      sigma: { type: "string", default: "0.5" },
      seed: { type: "string", default: "1" },
      out: { type: "string" },
      truth: { type: "string" },
    },
  });
  if (!values.input || !values.out || !values.truth) {
    process.stderr.write("usage: make-real-corpus --input FILE|- --out X.vert[.gz|.zst] --truth X.truth.tsv [--format kjv|plain] [--docs N] [--dup-share F] [--rates r,r,…] [--median-tokens N] [--sigma S] [--seed N]\n");
    process.exit(2);
  }
  const format = values.format;
  if (format !== "kjv" && format !== "plain") throw new Error("--format must be kjv or plain");
  const opts: CorpusOptions = {
    format,
    docs: Number(values.docs),
    dupShare: Number(values["dup-share"]),
    rates: values.rates!.split(",").map(Number),
    median: Number(values["median-tokens"]),
    sigma: Number(values.sigma),
    seed: Number(values.seed),
  };
  if (!(opts.dupShare >= 0 && opts.dupShare < 1)) throw new Error("--dup-share must be in [0, 1)");
  if (opts.rates.some((r) => !(r >= 0 && r < 1))) throw new Error("--rates must be in [0, 1)");
  const text = readFileSync(values.input === "-" ? 0 : values.input, "utf8");
  const c = makeCorpus(text, opts);
  const data = encode(values.out, c.vertical);
  writeAtomic(values.out, data);
  writeAtomic(values.truth, c.truth);
  process.stderr.write(
    `${values.out}: ${c.docs} documents (${c.originals} originals, ${c.copies} planted copies), ${c.tokens} tokens, ${data.length} bytes\n`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
