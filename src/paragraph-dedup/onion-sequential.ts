import { badLine, opensLike, TAG } from "../corpus/vertical.js";
import { docPartition } from "./ngram-hash.js";
import { LineProblem } from "./line-problem.js";
import type { ParagraphOptions } from "../core/paragraph-options.js";
import type { RenderStats } from "./render.js";

/**
 * `--count tokens`, onion 1.2 line for line (issue 30): the units, n-grams, covered-token
 * count, threshold, smoothing and document removal of README "Semantics", with onion's two
 * tables of seen n-grams (onion.c, `process_one_file`):
 * - a local one per document, holding every n-gram of the document met so far (kept or
 *   removed paragraphs alike);
 * - a global one, to which a document's n-grams are added after its decision, and only
 *   those ending in the units it keeps (after smoothing).
 * An n-gram is seen when it is in either. Whether a unit is kept thus depends on every
 * earlier decision, so this runs sequentially, in corpus order, one document at a time.
 * n-grams are held as their token strings (exact: no hash collision can mark a line), so
 * memory grows with the distinct n-grams of the kept text, as onion's table does. The
 * parallel bucket pipeline keeps the order-free rule ("seen anywhere earlier") as
 * `--count tokens-any`.
 */
export class OnionDedup {
  readonly stats: RenderStats = { docsIn: 0, docsOut: 0, paragraphsIn: 0, paragraphsOut: 0, tokensIn: 0, tokensOut: 0, duplicates: 0, stubs: 0 };
  /** Empty lines, and tag lines outside a document (the parallel pipeline's warnings). */
  readonly warnings = { emptyLine: 0, tagOutsideDoc: 0 };
  private readonly seen = new ShardedSet();
  private readonly limit: number;
  /** The open document: its lines, each line's unit (-1: the document's own tags), its units. */
  private doc: { lines: string[]; unitOf: number[]; units: Unit[] } | null = null;
  private docLine = 0;
  private window: string[] = [];
  /** The open document's `--partition-attr` value and a separator, before each of its n-grams (empty without the option). */
  private partition = "";
  private newUnit = false;

  /** `emit` receives the output, a line at a time with its newline. */
  constructor(
    private readonly o: ParagraphOptions,
    private readonly emit: (text: string) => void,
  ) {
    this.limit = Math.fround(o.threshold);
  }

  /**
   * The next input line (without its newline), line `lineNo` of its file; `raw` is written
   * instead (the file's first line with its byte-order mark). Bad input throws a LineProblem,
   * as the parallel pipeline's scan does.
   */
  line(line: string, lineNo: number, raw = line): void {
    const o = this.o;
    if (line.endsWith("\r")) throw new LineProblem(lineNo, badLine.crlf);
    if (line === "") this.warnings.emptyLine++;
    const tag = line.startsWith("<") ? TAG.exec(line) : null;
    if (tag === null && line.startsWith("<") && opensLike(Buffer.from(line), 0, Buffer.from(o.docTag))) throw new LineProblem(lineNo, badLine.openUnclosed(o.docTag));
    if (tag !== null && tag[2] === o.docTag) {
      if (tag[3] !== "") throw new LineProblem(lineNo, badLine.emptyDoc(o.docTag));
      if (tag[1] === "") {
        if (this.doc !== null) throw new LineProblem(lineNo, badLine.nestedOpen(this.docLine, o.docTag));
        this.doc = { lines: [raw], unitOf: [-1], units: [{ tokens: 0, grams: [] }] };
        this.docLine = lineNo;
        this.partition = o.partitionAttr === undefined ? "" : `${docPartition(line, o.partitionAttr, lineNo)}\u0002`;
        this.window = [];
        this.newUnit = false;
      } else {
        if (this.doc === null) throw new LineProblem(lineNo, badLine.strayClose(o.docTag));
        this.doc.lines.push(raw);
        this.doc.unitOf.push(-1);
        this.finishDoc();
      }
      return;
    }
    const d = this.doc;
    if (d === null) {
      if (tag !== null) this.warnings.tagOutsideDoc++;
      else if (line !== "") throw new LineProblem(lineNo, badLine.tokenOutside(o.docTag));
      this.out(false, raw);
      return;
    }
    const isStructure = tag !== null && tag[2] === o.structure && tag[3] === "";
    if (this.newUnit || (isStructure && tag![1] === "")) d.units.push({ tokens: 0, grams: [] });
    this.newUnit = isStructure && tag![1] === "/";
    const u = d.units[d.units.length - 1];
    d.lines.push(raw);
    d.unitOf.push(d.units.length - 1);
    if (tag !== null && o.boundary === "s" && tag[2] === "s") this.window = [];
    if (tag !== null || line === "") return;
    u.tokens++;
    const tab = line.indexOf("\t");
    this.window.push(tab < 0 ? line : line.slice(0, tab));
    if (this.window.length > o.ngram) this.window.shift();
    u.grams.push(this.window.length === o.ngram ? this.partition + this.window.join("\u0001") : null);
  }

  /** The end of a file: a document must not be left open. */
  endFile(): void {
    if (this.doc !== null) throw new LineProblem(this.docLine, badLine.neverClosed(this.o.docTag));
  }

  private out(removed: boolean, line: string): void {
    if (this.o.mark) this.emit(`${removed ? 1 : 0}\t${line}\n`);
    else if (!removed) this.emit(`${line}\n`);
  }

  private finishDoc(): void {
    const d = this.doc;
    if (d === null) return;
    this.doc = null;
    const { o, seen, stats } = this;
    stats.docsIn++;
    const local = new Set<string>();
    const bad = d.units.map((u) => {
      let repeated = 0;
      let badTokens = 0;
      // onion's prev_bad_tokens: n at the start of every paragraph.
      let prevBadTokens = o.ngram;
      for (const g of u.grams) {
        prevBadTokens = Math.max(0, prevBadTokens - 1);
        if (g === null) continue;
        if (local.has(g) || seen.has(g)) {
          repeated++;
          badTokens += o.ngram - prevBadTokens;
          prevBadTokens = o.ngram;
        }
        local.add(g);
      }
      return u.tokens > 0 && (o.count === "ngrams" ? repeated : badTokens) / u.tokens > this.limit;
    });
    for (let k = 0; k < bad.length; k++) if (bad[k] && d.units[k].tokens > 0) stats.duplicates++;
    if (o.maxStub >= 0) {
      let runStart = 0;
      let runTokens = 0;
      for (let k = 0; k <= d.units.length; k++) {
        if (k === d.units.length || bad[k]) {
          if (runTokens <= o.maxStub) {
            for (let r = runStart; r < k; r++) {
              if (d.units[r].tokens > 0) stats.stubs++;
              bad[r] = true;
            }
          }
          runStart = k + 1;
          runTokens = 0;
        } else {
          runTokens += d.units[k].tokens;
        }
      }
    }
    let kept = false;
    d.units.forEach((u, k) => {
      if (u.tokens > 0) stats.paragraphsIn++;
      stats.tokensIn += u.tokens;
      if (bad[k]) return;
      if (u.tokens > 0) (stats.paragraphsOut++, (kept = true));
      stats.tokensOut += u.tokens;
      for (const g of u.grams) if (g !== null) seen.add(g);
    });
    if (kept) stats.docsOut++;
    d.lines.forEach((line, i) => this.out(d.unitOf[i] < 0 ? !kept : bad[d.unitOf[i]], line));
  }
}

interface Unit {
  tokens: number;
  /** Per token, the key of the n-gram ending there (null: none). */
  grams: (string | null)[];
}

/** The whole of `text` through OnionDedup: the output and what it kept. */
export function onionParagraphs(text: string, o: ParagraphOptions): { output: string; stats: RenderStats } {
  const parts: string[] = [];
  const dedup = new OnionDedup(o, (t) => parts.push(t));
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  lines.forEach((line, i) => dedup.line(line, i + 1));
  dedup.endFile();
  return { output: parts.join(""), stats: dedup.stats };
}

/**
 * A set of strings spread over 256 Sets by a hash of the string: V8 holds at most 2^24
 * entries in one Set, and the kept text of a web corpus has more distinct n-grams than that.
 */
export class ShardedSet {
  private readonly shards = Array.from({ length: 256 }, () => new Set<string>());

  private shardOf(s: string): Set<string> {
    // FNV-1a over the UTF-16 code units, folded to a byte.
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    return this.shards[(h ^ (h >>> 8) ^ (h >>> 16) ^ (h >>> 24)) & 0xff];
  }

  has(s: string): boolean {
    return this.shardOf(s).has(s);
  }

  add(s: string): void {
    this.shardOf(s).add(s);
  }

  get size(): number {
    return this.shards.reduce((n, set) => n + set.size, 0);
  }
}
