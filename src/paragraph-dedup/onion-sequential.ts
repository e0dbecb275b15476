import { TAG } from "../corpus/vertical.js";
import type { ParagraphOptions } from "../core/paragraph-options.js";
import type { RenderStats } from "./render.js";

/**
 * `--count tokens`, onion 1.2 line for line (issue 30): the units, n-grams, covered-token
 * count, threshold, smoothing and document removal of README "Semantics", with onion's two
 * tables of seen n-grams:
 * - a local one per document, holding every n-gram of the document met so far (kept or
 *   removed paragraphs alike);
 * - a global one, to which a document's n-grams are added after its decision, and only
 *   those of the units it keeps (after smoothing).
 * An n-gram is seen when it is in either. Whether a unit is kept thus depends on every
 * earlier decision, so this runs sequentially, in corpus order, on one thread; n-grams are
 * held as their token strings (exact, no hash collisions), so memory grows with the distinct
 * n-grams of the kept text. The parallel bucket pipeline keeps the order-free rule
 * ("seen anywhere earlier") as `--count tokens-any`.
 */
export function onionParagraphs(text: string, o: ParagraphOptions): { output: string; stats: RenderStats } {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  type Unit = { tokens: number; grams: (string | null)[] };
  type Doc = { units: Unit[] };
  const docs: Doc[] = [];
  const owner: (Unit | Doc | null)[] = [];
  let doc: Doc | null = null;
  let unit: Unit | null = null;
  let window: string[] = [];
  let newUnit = false;
  for (const line of lines) {
    const tag = line.startsWith("<") ? TAG.exec(line) : null;
    if (tag !== null && tag[2] === o.docTag) {
      if (tag[1] === "") {
        doc = { units: [] };
        docs.push(doc);
        window = [];
        unit = { tokens: 0, grams: [] };
        doc.units.push(unit);
        newUnit = false;
      } else {
        doc = null;
      }
      owner.push(docs.length > 0 ? docs[docs.length - 1] : null);
      continue;
    }
    if (doc === null) {
      owner.push(null);
      continue;
    }
    const isStructure = tag !== null && tag[2] === o.structure && tag[3] === "";
    if (newUnit || (isStructure && tag![1] === "")) {
      unit = { tokens: 0, grams: [] };
      doc.units.push(unit);
    }
    newUnit = isStructure && tag![1] === "/";
    const u: Unit = unit!;
    owner.push(u);
    if (tag !== null && o.boundary === "s" && tag[2] === "s") window = [];
    if (tag !== null || line === "") continue;
    u.tokens++;
    const tab = line.indexOf("\t");
    window.push(tab < 0 ? line : line.slice(0, tab));
    if (window.length > o.ngram) window.shift();
    u.grams.push(window.length === o.ngram ? window.join("\u0001") : null);
  }

  const seen = new Set<string>();
  const removedUnit = new Set<Unit>();
  const removedDoc = new Set<Doc>();
  const limit = Math.fround(o.threshold);
  const stats: RenderStats = { docsIn: docs.length, docsOut: 0, paragraphsIn: 0, paragraphsOut: 0, tokensIn: 0, tokensOut: 0, duplicates: 0, stubs: 0 };
  for (const d of docs) {
    const local = new Set<string>();
    const bad = d.units.map((u) => {
      let badTokens = 0;
      let repeated = 0;
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
      return u.tokens > 0 && (o.count === "ngrams" ? repeated : badTokens) / u.tokens > limit;
    });
    for (let k = 0; k < bad.length; k++) if (bad[k] && d.units[k].tokens > 0) stats.duplicates++;
    let run: number[] = [];
    let runTokens = 0;
    for (let k = 0; k <= d.units.length; k++) {
      if (k === d.units.length || bad[k]) {
        if (runTokens <= o.maxStub) {
          for (const r of run) {
            if (d.units[r].tokens > 0) stats.stubs++;
            bad[r] = true;
          }
        }
        run = [];
        runTokens = 0;
      } else {
        run.push(k);
        runTokens += d.units[k].tokens;
      }
    }
    d.units.forEach((u, k) => {
      if (u.tokens > 0) stats.paragraphsIn++;
      stats.tokensIn += u.tokens;
      if (bad[k]) removedUnit.add(u);
      else {
        if (u.tokens > 0) stats.paragraphsOut++;
        stats.tokensOut += u.tokens;
        for (const g of u.grams) if (g !== null) seen.add(g);
      }
    });
    if (!d.units.some((u, k) => !bad[k] && u.tokens > 0)) removedDoc.add(d);
    else stats.docsOut++;
  }

  const out: string[] = [];
  lines.forEach((line, i) => {
    const who = owner[i];
    const removed = who === null ? false : "units" in who ? removedDoc.has(who) : removedUnit.has(who);
    if (o.mark) out.push(`${removed ? 1 : 0}\t${line}`);
    else if (!removed) out.push(line);
  });
  return { output: out.length > 0 ? `${out.join("\n")}\n` : "", stats };
}
