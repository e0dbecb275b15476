/**
 * Checks a pairs.tsv against exact cosine similarity on the same corpus.
 *
 *   node dist/scripts/quality/check-pairs.js CORPUS.vert[.gz|.zst] PAIRS.tsv [--json out.json]
 *       [--weighting tf|tfidf] [--recall-at 0.97] [--precision-at 0.8]
 *       [--recall-cutoffs 0.8,0.9,0.95,0.97,0.99] [--precision-cutoffs 0.5,0.7,0.8,0.9,0.95]
 *
 * The corpus is read with the project's own reader (chunkCorpus + parseChunk, column 0,
 * id attribute "id") and normaliser (termCounts: lowercase, digit-only tokens dropped,
 * shingle size 1); vectors are raw term counts (tf) unless `--weighting tfidf`.
 *
 * pairs.tsv: a header `doc_a<TAB>doc_b<TAB>similarity` (further columns are ignored; a
 * first line is a header when it starts with `doc_a` or its third field is not a number), then one pair per line
 * with document ids as in the corpus. `.gz` names are decompressed.
 *
 * Recall at c: of all pairs with exact cosine >= c, the share present in pairs.tsv.
 * Precision at c: of the distinct reported pairs (of known ids), the share whose exact
 * cosine is >= c. Exit code 0 unless the inputs cannot be read.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { chunkCorpus } from "../../src/corpus/chunker.js";
import { parseChunk, emptyWarnings, type ReaderWarnings } from "../../src/corpus/vertical.js";
import { termCounts, type TermCounts } from "../../src/features/terms.js";
import { weightVectors, allPairsOfRows, cosineOf, type Weighting } from "../../src/eval/exact/cosine.js";

export interface CorpusTerms {
  ids: string[];
  docs: TermCounts[];
  warnings: ReaderWarnings;
}

export async function readCorpusTerms(path: string): Promise<CorpusTerms> {
  const ids: string[] = [];
  const docs: TermCounts[] = [];
  const warnings = emptyWarnings();
  const topts = { normalize: "nfc" as const, lowercase: true, keepNumbers: false, shingleSize: 1 };
  for await (const chunk of chunkCorpus([path], 4 << 20)) {
    parseChunk(chunk, { column: 0, idAttr: "id" }, warnings, (doc) => {
      ids.push(doc.id);
      docs.push(termCounts(doc.tokens, topts));
    });
  }
  return { ids, docs, warnings };
}

export interface ReportedPairs {
  /** Distinct unordered pairs of document ordinals, as "a:b" with a < b. */
  pairs: Set<string>;
  lines: number;
  unknownIds: number;
  selfPairs: number;
  duplicates: number;
}

function pairKey(a: number, b: number): string {
  return a < b ? `${a}:${b}` : `${b}:${a}`;
}

export function readPairs(path: string, ordinalOf: Map<string, number>): ReportedPairs {
  const raw = readFileSync(path);
  const text = (path.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8");
  const out: ReportedPairs = { pairs: new Set(), lines: 0, unknownIds: 0, selfPairs: 0, duplicates: 0 };
  const lines = text.split("\n");
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n].replace(/\r$/, "");
    if (line.length === 0 || line.startsWith("#")) continue;
    const f = line.split("\t");
    if (n === 0 && (f[0] === "doc_a" || (f.length > 2 && Number.isNaN(Number(f[2]))))) continue; // header
    out.lines++;
    const a = ordinalOf.get(f[0]);
    const b = ordinalOf.get(f[1] ?? "");
    if (a === undefined || b === undefined) {
      out.unknownIds++;
      continue;
    }
    if (a === b) {
      out.selfPairs++;
      continue;
    }
    const key = pairKey(a, b);
    if (out.pairs.has(key)) out.duplicates++;
    else out.pairs.add(key);
  }
  return out;
}

export interface CheckResult {
  corpus: string;
  pairsFile: string;
  weighting: Weighting;
  documents: number;
  duplicateIds: number;
  reported: { lines: number; distinct: number; unknownIds: number; selfPairs: number; duplicates: number };
  recall: { cutoff: number; exactPairs: number; found: number; recall: number | null }[];
  precision: { cutoff: number; reported: number; atLeast: number; precision: number | null }[];
  headline: { recallAt: number; recall: number | null; exactPairs: number; precisionAt: number; precision: number | null; reported: number };
  exactSeconds: number;
}

export async function checkPairs(
  corpus: string,
  pairsFile: string,
  opts: { weighting: Weighting; recallCutoffs: number[]; precisionCutoffs: number[]; recallAt: number; precisionAt: number },
): Promise<CheckResult> {
  const { ids, docs } = await readCorpusTerms(corpus);
  const ordinalOf = new Map<string, number>();
  let duplicateIds = 0;
  ids.forEach((id, i) => {
    if (ordinalOf.has(id)) duplicateIds++;
    else ordinalOf.set(id, i);
  });
  const reported = readPairs(pairsFile, ordinalOf);

  const recallCutoffs = [...new Set([...opts.recallCutoffs, opts.recallAt])].sort((x, y) => x - y);
  const precisionCutoffs = [...new Set([...opts.precisionCutoffs, opts.precisionAt])].sort((x, y) => x - y);

  const t0 = performance.now();
  const { rows, vectors } = weightVectors(docs, opts.weighting);
  const exact = allPairsOfRows(rows, recallCutoffs[0]);
  const exactSeconds = (performance.now() - t0) / 1000;

  const recall = recallCutoffs.map((cutoff) => {
    let exactPairs = 0;
    let found = 0;
    for (const p of exact) {
      if (p.similarity < cutoff) continue;
      exactPairs++;
      if (reported.pairs.has(pairKey(p.a, p.b))) found++;
    }
    return { cutoff, exactPairs, found, recall: exactPairs > 0 ? found / exactPairs : null };
  });

  const sims: number[] = [];
  for (const key of reported.pairs) {
    const [a, b] = key.split(":").map(Number);
    sims.push(cosineOf(vectors[a], vectors[b]));
  }
  const precision = precisionCutoffs.map((cutoff) => {
    const atLeast = sims.filter((s) => s >= cutoff).length;
    return { cutoff, reported: sims.length, atLeast, precision: sims.length > 0 ? atLeast / sims.length : null };
  });

  const r = recall.find((x) => x.cutoff === opts.recallAt)!;
  const p = precision.find((x) => x.cutoff === opts.precisionAt)!;
  return {
    corpus,
    pairsFile,
    weighting: opts.weighting,
    documents: ids.length,
    duplicateIds,
    reported: {
      lines: reported.lines,
      distinct: reported.pairs.size,
      unknownIds: reported.unknownIds,
      selfPairs: reported.selfPairs,
      duplicates: reported.duplicates,
    },
    recall,
    precision,
    headline: {
      recallAt: opts.recallAt,
      recall: r.recall,
      exactPairs: r.exactPairs,
      precisionAt: opts.precisionAt,
      precision: p.precision,
      reported: p.reported,
    },
    exactSeconds,
  };
}

function pct(x: number | null): string {
  return x === null ? "n/a" : `${(100 * x).toFixed(2)}%`;
}

export function formatReport(c: CheckResult): string {
  const out: string[] = [];
  out.push(`corpus: ${c.corpus} (${c.documents} documents${c.duplicateIds ? `, ${c.duplicateIds} repeated ids ignored` : ""})`);
  out.push(
    `pairs:  ${c.pairsFile} (${c.reported.lines} lines, ${c.reported.distinct} distinct pairs` +
      `${c.reported.unknownIds ? `, ${c.reported.unknownIds} with unknown ids` : ""}` +
      `${c.reported.selfPairs ? `, ${c.reported.selfPairs} self pairs` : ""}` +
      `${c.reported.duplicates ? `, ${c.reported.duplicates} repeated` : ""})`,
  );
  out.push(`exact ${c.weighting} cosine of all pairs: ${c.exactSeconds.toFixed(2)} s`);
  out.push("");
  const h = c.headline;
  out.push(`recall    @ cos >= ${h.recallAt}: ${pct(h.recall)} of ${h.exactPairs} exact pairs`);
  out.push(`precision @ cos >= ${h.precisionAt}: ${pct(h.precision)} of ${h.reported} reported pairs`);
  out.push("");
  out.push("cut-off  exact pairs    found    recall");
  for (const r of c.recall) {
    out.push(`${r.cutoff.toFixed(2).padStart(7)}  ${String(r.exactPairs).padStart(11)}  ${String(r.found).padStart(7)}  ${pct(r.recall).padStart(8)}`);
  }
  out.push("");
  out.push("cut-off     reported  cos >= cut  precision");
  for (const p of c.precision) {
    out.push(`${p.cutoff.toFixed(2).padStart(7)}  ${String(p.reported).padStart(11)}  ${String(p.atLeast).padStart(10)}  ${pct(p.precision).padStart(9)}`);
  }
  return out.join("\n") + "\n";
}

function numbers(s: string): number[] {
  return s.split(",").filter((x) => x.length > 0).map(Number);
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      json: { type: "string" },
      weighting: { type: "string", default: "tf" },
      "recall-at": { type: "string", default: "0.97" },
      "precision-at": { type: "string", default: "0.8" },
      "recall-cutoffs": { type: "string", default: "0.8,0.9,0.95,0.97,0.99" },
      "precision-cutoffs": { type: "string", default: "0.5,0.7,0.8,0.9,0.95" },
    },
  });
  if (positionals.length !== 2) {
    process.stderr.write("usage: check-pairs CORPUS.vert[.gz|.zst] PAIRS.tsv [--json out.json] [--weighting tf|tfidf] [--recall-at C] [--precision-at C] [--recall-cutoffs c,c,…] [--precision-cutoffs c,c,…]\n");
    process.exit(2);
  }
  const weighting = values.weighting;
  if (weighting !== "tf" && weighting !== "tfidf") throw new Error("--weighting must be tf or tfidf");
  const cut = [
    ...numbers(values["recall-cutoffs"]!),
    ...numbers(values["precision-cutoffs"]!),
    Number(values["recall-at"]),
    Number(values["precision-at"]),
  ];
  if (cut.some((c) => !(c > 0 && c <= 1))) throw new Error("cut-offs must be in (0, 1]");
  const result = await checkPairs(positionals[0], positionals[1], {
    weighting,
    recallCutoffs: numbers(values["recall-cutoffs"]!),
    precisionCutoffs: numbers(values["precision-cutoffs"]!),
    recallAt: Number(values["recall-at"]),
    precisionAt: Number(values["precision-at"]),
  });
  process.stdout.write(formatReport(result));
  if (values.json) writeFileSync(values.json, JSON.stringify(result, null, 2) + "\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`check-pairs: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
