import type { Deviation } from "../../src/eval/measures.js";
import { lineSvg, scatterSvg } from "../../src/eval/svg-plot.js";
import { THESIS } from "./thesis-numbers.js";

export interface Results {
  corpus: string;
  documents: number;
  distinctSignatures: number;
  weighting: string;
  threshold: number;
  referencePairs: number;
  referencePairs95: number;
  similarityPairs95: number;
  shiftIterations: number;
  prepareSeconds: number;
  /** [beam, found %] */
  beam: [number, number][];
  shift10: [number, number][];
  shift20: [number, number][];
  /** [iteration, found %] for beam 50, shift 40. */
  iterations: [number, number][];
  byLength: { bits: number; deviation: Deviation; distinct: number }[];
  judgedPairs: number;
  /** [cosine, Hamming similarity] at 1024 bits. */
  scatter: [number, number][];
  timing: { run: string; seconds: number; found: number | null }[];
}

const OURS = "#1f77b4";
const THEIRS = "#d62728";
const OURS2 = "#2ca02c";
const THEIRS2 = "#ff7f0e";

function mdTable(head: string[], rows: (string | number)[][]): string {
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

function htmlTable(head: string[], rows: (string | number)[][]): string {
  return `<table><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("")}</table>`;
}

const f1 = (x: number) => x.toFixed(1);
const thesisAt = (table: [number, number][], x: number) => table.find((r) => r[0] === x)?.[1] ?? "–";

/** The report as a self-contained HTML page with SVG plots and as Markdown (same tables). */
export function renderReport(r: Results): { html: string; markdown: string } {
  const sections: { title: string; note: string; head: string[]; rows: (string | number)[][]; svg?: string }[] = [];
  const iterAt = [50, 100, 150, 200, 250].map((k) => [k, r.iterations[k]?.[1] ?? NaN] as [number, number]);
  sections.push({
    title: "Figure 2.5 — Hamming vs cosine similarity (1024 bits)",
    note: `${r.scatter.length} pairs: all with cosine ≥ 0.2 and pseudo-random others. Unrelated documents still agree on about half of the bits.`,
    head: [],
    rows: [],
    svg: scatterSvg({ title: "Hamming vs cosine similarity", xLabel: "exact cosine", yLabel: "relative Hamming similarity", x: [0, 1], y: [0.3, 1] }, [
      { name: "document pair", color: OURS, points: r.scatter },
    ]),
  });
  sections.push({
    title: "Table 2.1 — found pairs % by beam (iter_count 100, shift_count 50)",
    note: "",
    head: ["beam", "found % (here)", "found % (thesis)"],
    rows: r.beam.map(([b, x]) => [b, f1(x), thesisAt(THESIS.beam, b)]),
    svg: lineSvg({ title: "found pairs % vs beam", xLabel: "beam", yLabel: "found pairs %", x: [55, 95], y: [0, 100] }, [
      { name: "here", color: OURS, points: r.beam },
      { name: "thesis", color: THEIRS, points: THESIS.beam, dashed: true },
    ]),
  });
  sections.push({
    title: `Tables 2.2, 2.3 — found pairs % by shift_count (iter_count ${r.shiftIterations})`,
    note: "",
    head: ["shift_count", "beam 10 (here)", "beam 10 (thesis)", "beam 20 (here)", "beam 20 (thesis)"],
    rows: r.shift10.map(([s, x], k) => [s, f1(x), thesisAt(THESIS.shiftBeam10, s), f1(r.shift20[k][1]), thesisAt(THESIS.shiftBeam20, s)]),
    svg: lineSvg({ title: "found pairs % vs shift_count", xLabel: "shift_count", yLabel: "found pairs %", x: [0, 100], y: [0, 100] }, [
      { name: "beam 10, here", color: OURS, points: r.shift10 },
      { name: "beam 20, here", color: OURS2, points: r.shift20 },
      { name: "beam 10, thesis", color: THEIRS, points: THESIS.shiftBeam10, dashed: true },
      { name: "beam 20, thesis", color: THEIRS2, points: THESIS.shiftBeam20, dashed: true },
    ]),
  });
  sections.push({
    title: "Table 2.4 — found pairs % by iter_count (beam 50, shift_count 40)",
    note: "Read off one run's per-iteration recall (pleb --reference).",
    head: ["iter_count", "found % (here)", "found % (thesis)"],
    rows: iterAt.map(([k, x]) => [k, f1(x), thesisAt(THESIS.iterations, k)]),
    svg: lineSvg({ title: "found pairs % vs iterations", xLabel: "iterations", yLabel: "found pairs %", x: [0, 250], y: [0, 100] }, [
      { name: "here (every iteration)", color: OURS, points: r.iterations },
      { name: "thesis", color: THEIRS, points: THESIS.iterations, dashed: true },
    ]),
  });
  sections.push({
    title: "Table 2.17 — signature length vs L1, L2, S",
    note: `Over ${r.judgedPairs} judged pairs; L1 in points, L2 in points², S in points (0–100 scale, as the thesis). The thesis's S is for tf vectors of its newspaper collection.`,
    head: ["bits", "distinct signatures", "L1", "L2", "S (here)", "S (thesis)"],
    rows: r.byLength.map((b) => [
      b.bits,
      b.distinct,
      (100 * b.deviation.l1).toFixed(3),
      (1e4 * b.deviation.l2).toFixed(3),
      (100 * b.deviation.s).toFixed(3),
      thesisAt(THESIS.lengthS, b.bits),
    ]),
    svg: lineSvg(
      { title: "S vs signature length", xLabel: "bits", yLabel: "S (points)", x: [0, 4200], y: [0, Math.max(3, ...r.byLength.map((b) => 100 * b.deviation.s)) * 1.1] },
      [
        { name: "here", color: OURS, points: r.byLength.map((b) => [b.bits, 100 * b.deviation.s]) },
        { name: "thesis (tf)", color: THEIRS, points: THESIS.lengthS, dashed: true },
      ],
    ),
  });
  sections.push({
    title: "Table 2.59 — time (threshold 0.95, beam 50, shift_count 70)",
    note: `Here: ${r.documents} documents, ${r.referencePairs95} pairs findable by hamming-full, ${r.similarityPairs95} pairs of cosine ≥ 0.95; preparation ${r.prepareSeconds.toFixed(1)} s. Thesis: 644,566 documents, 24,306 findable pairs, minutes on an Opteron 275.`,
    head: ["run", "seconds (here)", "found % (here)", "minutes (thesis)", "found % (thesis)"],
    rows: r.timing.map((t, k) => [t.run, t.seconds.toFixed(3), t.found === null ? "–" : f1(t.found), THESIS.timing[k][1], THESIS.timing[k][2] ?? "–"]),
  });
  const intro = `Corpus <code>${r.corpus}</code>: ${r.documents} documents, ${r.distinctSignatures} distinct 1024-bit signatures, ${r.weighting} vectors. Found pairs % is PLEB's recall against hamming-full at threshold ${r.threshold} (${r.referencePairs} pairs), as in the thesis.`;
  const html = [
    "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>vertdup — thesis experiments</title>",
    "<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}section{margin-bottom:2em}</style></head><body>",
    "<h1>vertdup — the thesis's experiments</h1>",
    `<p>${intro}</p>`,
    ...sections.map(
      (s) => `<section><h2>${s.title}</h2>${s.note ? `<p>${s.note}</p>` : ""}${s.svg ?? ""}${s.head.length > 0 ? htmlTable(s.head, s.rows) : ""}</section>`,
    ),
    "</body></html>",
  ].join("\n");
  const markdown = [
    "# vertdup — the thesis's experiments",
    "",
    intro.replace(/<\/?code>/g, "`"),
    ...sections.filter((s) => s.head.length > 0).flatMap((s) => ["", `## ${s.title}`, "", ...(s.note ? [s.note, ""] : []), mdTable(s.head, s.rows)]),
    "",
  ].join("\n");
  return { html, markdown };
}
