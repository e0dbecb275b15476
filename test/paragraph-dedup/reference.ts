import { TAG } from "../../src/corpus/vertical.js";
import type { ParagraphOptions } from "../../src/paragraph-dedup/options.js";

/**
 * The sequential definition of `vertdup paragraphs`, written as plainly as possible to check
 * the parallel implementation against: one pass over the lines, n-grams as strings in one
 * Set ("seen earlier" = occurred anywhere before in corpus order, duplicates included), then
 * onion's decision and smoothing per document. Assumes valid input.
 */
export function referenceParagraphs(text: string, o: ParagraphOptions): string {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  type Unit = { tokens: number; repeated: number; lines: number[] };
  type Doc = { open: number; close: number; units: Unit[] };
  const docs: Doc[] = [];
  const owner: (Unit | Doc | null)[] = [];
  const seen = new Set<string>();
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
        unit = { tokens: 0, repeated: 0, lines: [] };
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
      unit = { tokens: 0, repeated: 0, lines: [] };
      d.units.push(unit);
    }
    newUnit = isStructure && tag![1] === "/";
    const u: Unit = unit!;
    u.lines.push(i);
    owner.push(u);
    if (tag !== null || line === "") return;
    u.tokens++;
    window.push(line.split("\t")[0]);
    if (window.length > o.ngram) window.shift();
    if (window.length === o.ngram) {
      const key = window.join("\u0001");
      if (seen.has(key)) u.repeated++;
      else seen.add(key);
    }
  });

  const removedUnit = new Set<Unit>();
  const removedDoc = new Set<Doc>();
  for (const d of docs) {
    const bad = d.units.map((u) => u.tokens > 0 && u.repeated / u.tokens > Math.fround(o.threshold));
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
    d.units.forEach((u, k) => bad[k] && removedUnit.add(u));
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
