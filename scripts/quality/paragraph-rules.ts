/**
 * What each difference between `vertdup paragraphs` and onion 1.2 or the 2017 lecture (seed
 * 003) changes on a corpus (not a test):
 *
 *   node dist/scripts/quality/paragraph-rules.js [data-samples/kjv-3000.vert.gz]
 *
 * Every rule is the sequential reference (test/paragraph-dedup/reference.ts) with one
 * difference switched, compared with vertdup's defaults by the marks (`--mark`) of the token
 * lines: the share of token lines whose mark changes. It also checks that `vertdup
 * paragraphs` equals the reference on the corpus for every `--count` and `--boundary`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { TAG } from "../../src/corpus/vertical.js";
import { BOUNDARIES, COUNT_RULES, DEFAULT_PARAGRAPH, type ParagraphOptions } from "../../src/core/paragraph-options.js";
import { paragraphs } from "../../src/paragraph-dedup/pipeline.js";
import { referenceParagraphs, type RuleVariant } from "../../test/paragraph-dedup/reference.js";

const path = process.argv[2] ?? "data-samples/kjv-3000.vert.gz";
const raw = readFileSync(path);
const text = (path.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8");
const lines = text.split("\n");
if (lines[lines.length - 1] === "") lines.pop();
const isToken = (line: string) => line !== "" && !(line.startsWith("<") && TAG.test(line));
const tokenLines = lines.filter(isToken).length;

const marks = (o: Partial<ParagraphOptions>, variant: RuleVariant = {}) => referenceParagraphs(text, { ...DEFAULT_PARAGRAPH, ...o, mark: true }, variant).split("\n").slice(0, lines.length);
const base = marks({});
const changed = (other: string[]) => lines.reduce((n, line, i) => n + (isToken(line) && other[i][0] !== base[i][0] ? 1 : 0), 0);
const share = (n: number) => `${n} (${((100 * n) / tokenLines).toFixed(2)} %)`;

const rules: [string, Partial<ParagraphOptions>, RuleVariant][] = [
  ["onion 1.2: covered tokens, every earlier occurrence seen (`--count tokens-any`)", { count: "tokens-any" }, {}],
  ["onion 1.2: only kept paragraphs' n-grams seen", {}, { table: "kept" }],
  ["onion 1.2: both (`--count tokens`: onion 1.2 itself, but for its token definition and hashes)", { count: "tokens" }, { table: "kept" }],
  ["seed 003: n-grams inside sentences (`--boundary s`)", { boundary: "s" }, {}],
  ["seed 003: share of the paragraph's n-grams, not tokens", {}, { per: "ngrams" }],
  ["seed 003: its smoothing (a duplicate between two kept paragraphs stays)", {}, { smoothing: "seed003" }],
  ["seed 003: all three", { boundary: "s" }, { per: "ngrams", smoothing: "seed003" }],
];

console.log(`${path}: ${lines.length} lines, ${tokenLines} token lines; defaults (--count ngrams --boundary doc) remove ${share(base.filter((l, i) => isToken(lines[i]) && l[0] === "1").length)}`);
console.log("\n| rule changed | token lines whose mark changes |\n|---|---|");
for (const [name, o, variant] of rules) console.log(`| ${name} | ${share(changed(marks(o, variant)))} |`);
const onionTokens = lines.filter((l) => l === "" || l.includes("\t") || (l.startsWith("<") && !TAG.test(l))).length;
console.log(`| onion 1.2: its tokens (whole line; empty lines; no line starting with <) | ${onionTokens} lines differ in kind |`);

const dir = mkdtempSync(join(tmpdir(), "paragraph-rules-"));
try {
  for (const count of COUNT_RULES) {
    for (const boundary of BOUNDARIES) {
      const options = { ...DEFAULT_PARAGRAPH, count, boundary, mark: true };
      const output = join(dir, "out.vert");
      await paragraphs([path], output, options, { workers: 2, quiet: true });
      const same = readFileSync(output, "utf8") === referenceParagraphs(text, options);
      console.log(`vertdup paragraphs --count ${count} --boundary ${boundary} --mark: ${same ? "equals" : "DIFFERS FROM"} the reference`);
      if (!same) process.exitCode = 1;
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
