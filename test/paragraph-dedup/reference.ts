import { TAG } from "../../src/corpus/vertical.js";
import { normalizeUnicode } from "../../src/features/normalize.js";
import type { ParagraphOptions } from "../../src/core/paragraph-options.js";

/**
 * Other rules than vertdup's, for scripts/quality/paragraph-rules.ts to measure what each
 * difference changes (the tests use none of them).
 */
export interface RuleVariant {
  /** onion 1.2's tables: an n-gram is seen when in the current document earlier or in a *kept* unit of an earlier one. */
  table?: "all" | "kept";
  /** seed 003: the share is over the unit's n-grams ("50 % of its 7-grams") instead of its tokens. */
  per?: "tokens" | "ngrams";
  /** seed 003's smoothing: a duplicate unit right between two non-duplicate units (with tokens) is kept; no stub is removed. */
  smoothing?: "onion" | "seed003";
}

/**
 * The sequential definition of `vertdup paragraphs`, written as plainly as possible to check
 * the parallel implementation against: one pass over the lines, n-grams as strings in one
 * Set ("seen earlier" = occurred anywhere before in corpus order, duplicates included), then
 * onion's decision and smoothing per document. The covered-token rule (`count` tokens) is
 * onion 1.2's loop as written there (`prev_bad_tokens`). Assumes valid input.
 */
export function referenceParagraphs(text: string, o: ParagraphOptions, variant: RuleVariant = {}): string {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  // `grams`: per token of the unit, the key of the n-gram that ends there (null: none).
  type Unit = { tokens: number; grams: (string | null)[]; lines: number[] };
  type Doc = { open: number; close: number; units: Unit[] };
  const docs: Doc[] = [];
  const owner: (Unit | Doc | null)[] = [];
  let doc: Doc | null = null;
  let unit: Unit | null = null;
  let window: string[] = [];
  let newUnit = false;
  lines.forEach((line, i) => {
    const tag = line.startsWith("<") ? TAG.exec(line) : null;
    if (tag !== null && tag[2] === o.docTag) {
      if (tag[1] === "") {
        doc = { open: i, close: -1, units: [] };
        docs.push(doc);
        window = [];
        unit = { tokens: 0, grams: [], lines: [] };
        doc.units.push(unit);
        newUnit = false;
      } else {
        doc!.close = i;
        doc = null;
      }
      owner.push(docs[docs.length - 1]);
      return;
    }
    if (doc === null) {
      owner.push(null);
      return;
    }
    const d: Doc = doc;
    const isStructure = tag !== null && tag[2] === o.structure && tag[3] === "";
    if (newUnit || (isStructure && tag![1] === "")) {
      unit = { tokens: 0, grams: [], lines: [] };
      d.units.push(unit);
    }
    newUnit = isStructure && tag![1] === "/";
    const u: Unit = unit!;
    u.lines.push(i);
    owner.push(u);
    if (tag !== null && o.boundary === "s" && tag[2] === "s") window = [];
    if (tag !== null || line === "") return;
    u.tokens++;
    window.push(normalizeUnicode(line.split("\t")[0], o.normalize));
    if (window.length > o.ngram) window.shift();
    u.grams.push(window.length === o.ngram ? window.join("\u0001") : null);
  });

  // `--count tokens` is onion 1.2's kept-paragraph rule unless a variant says otherwise.
  const table = variant.table ?? (o.count === "tokens" ? "kept" : "all");
  const seen = new Set<string>();
  const removedUnit = new Set<Unit>();
  const removedDoc = new Set<Doc>();
  const limit = Math.fround(o.threshold);
  for (const d of docs) {
    const local = new Set<string>();
    const bad = d.units.map((u) => {
      let repeated = 0;
      let badTokens = 0;
      let ngrams = 0;
      let prevBadTokens = o.ngram;
      for (const g of u.grams) {
        prevBadTokens = Math.max(0, prevBadTokens - 1);
        if (g === null) continue;
        ngrams++;
        if (table === "kept" ? local.has(g) || seen.has(g) : seen.has(g)) {
          repeated++;
          badTokens += o.ngram - prevBadTokens;
          prevBadTokens = o.ngram;
        }
        if (table === "kept") local.add(g);
        else seen.add(g);
      }
      const share = o.count === "ngrams" ? repeated : badTokens;
      const per = variant.per === "ngrams" ? ngrams : u.tokens;
      return per > 0 && share / per > limit;
    });
    if (variant.smoothing === "seed003") {
      // Neighbours are the units with tokens before and after.
      const own = [...bad];
      const full = d.units.flatMap((u, k) => (u.tokens > 0 ? [k] : []));
      for (let j = 1; j + 1 < full.length; j++) if (own[full[j]] && !own[full[j - 1]] && !own[full[j + 1]]) bad[full[j]] = false;
    } else {
      let run: number[] = [];
      let runTokens = 0;
      for (let k = 0; k <= d.units.length; k++) {
        if (k === d.units.length || bad[k]) {
          if (runTokens <= o.maxStub) for (const r of run) bad[r] = true;
          run = [];
          runTokens = 0;
        } else {
          run.push(k);
          runTokens += d.units[k].tokens;
        }
      }
    }
    d.units.forEach((u, k) => {
      if (bad[k]) removedUnit.add(u);
      else if (table === "kept") for (const g of u.grams) if (g !== null) seen.add(g);
    });
    if (!d.units.some((u, k) => !bad[k] && u.tokens > 0)) removedDoc.add(d);
  }

  const out: string[] = [];
  lines.forEach((line, i) => {
    const who = owner[i];
    const removed = who === null ? false : "open" in who ? removedDoc.has(who) : removedUnit.has(who);
    if (o.mark) out.push(`${removed ? 1 : 0}\t${line}`);
    else if (!removed) out.push(line);
  });
  return out.length > 0 ? `${out.join("\n")}\n` : "";
}
