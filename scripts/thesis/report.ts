import type { Deviation } from "../../src/eval/measures.js";
import { lineSvg, scatterSvg, type ChartOptions, type Series } from "../../src/eval/svg-plot.js";
import { THESIS } from "./thesis-numbers.js";

export interface CorpusInfo {
  corpus: string;
  /** How the corpus was made (generated ones), or null. */
  description: string | null;
  documents: number;
  distinctSignatures: number;
  prepareSeconds: number;
}

export interface Results {
  /** The corpus of Figure 2.5 and Table 2.17 (and of everything when `sweep` is null). */
  text: CorpusInfo;
  /** The corpus of Tables 2.1–2.4 and 2.59, when it is another one. */
  sweep: CorpusInfo | null;
  weighting: string;
  /** Hamming threshold of Tables 2.1–2.4. */
  threshold: number;
  referencePairs: number;
  referencePairs95: number;
  similarityNote: string | null;
  shiftIterations: number;
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
  totalSeconds: number;
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
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const int = (n: number) => n.toLocaleString("en-US");

/**
 * A line chart whose legend sits in the corner of the plot area that the curves leave free.
 * svg-plot.ts always draws the legend top left, where rising curves (found % vs beam,
 * shift_count, iterations) tend to pass; its legend is the last 2 elements per series before
 * `</svg>`, which are moved here. The geometry (560 × 360, margins 60/20/34/48, legend rows of
 * 14 px at x = left + 10) mirrors svg-plot.ts's frame().
 */
function lineChart(o: ChartOptions, series: Series[]): string {
  const svg = lineSvg(o, series);
  const W = o.width ?? 560;
  const H = o.height ?? 360;
  const m = { l: 60, r: 20, t: 34, b: 48 };
  const sx = (x: number) => m.l + ((x - o.x[0]) / (o.x[1] - o.x[0])) * (W - m.l - m.r);
  const sy = (y: number) => H - m.b - ((y - o.y[0]) / (o.y[1] - o.y[0])) * (H - m.t - m.b);
  // Points along every curve, 40 per segment, in pixels.
  const trace: [number, number][] = [];
  for (const s of series) {
    for (let k = 0; k < s.points.length; k++) {
      const [x1, y1] = s.points[k];
      const [x0, y0] = s.points[Math.max(0, k - 1)];
      for (let t = 0; t <= 40; t++) trace.push([sx(x0 + ((x1 - x0) * t) / 40), sy(y0 + ((y1 - y0) * t) / 40)]);
    }
  }
  const w = 40 + 6.2 * Math.max(...series.map((s) => s.name.length));
  const h = 14 * series.length + 8;
  const corners: [number, number][] = [
    [m.l + 6, m.t + 2], // top left (svg-plot's place)
    [W - m.r - 6 - w, H - m.b - 4 - h], // bottom right
    [W - m.r - 6 - w, m.t + 2], // top right
    [m.l + 6, H - m.b - 4 - h], // bottom left
    [W - m.r - 6 - w, (m.t + H - m.b - h) / 2], // middle right
  ];
  const hits = ([x0, y0]: [number, number]) => trace.filter(([x, y]) => x >= x0 - 3 && x <= x0 + w + 3 && y >= y0 - 3 && y <= y0 + h + 3).length;
  const best = corners.reduce((a, c) => (hits(c) < hits(a) ? c : a));
  const lines = svg.split("\n");
  const cut = lines.length - 1 - 2 * series.length;
  const legend = lines.slice(cut, -1);
  const dx = best[0] - (m.l + 6);
  const dy = best[1] - (m.t + 2);
  const box = `<rect x="${m.l + 6}" y="${m.t + 2}" width="${w.toFixed(0)}" height="${h}" fill="none" stroke="#ccc"/>`;
  return [...lines.slice(0, cut), `<g transform="translate(${dx.toFixed(1)} ${dy.toFixed(1)})">`, box, ...legend, "</g>", "</svg>"].join("\n");
}

/** The report as a self-contained HTML page with SVG plots and as Markdown (same tables). */
export function renderReport(r: Results): { html: string; markdown: string } {
  const sweep = r.sweep ?? r.text;
  const textName = `<code>${esc(r.text.corpus)}</code>`;
  const sweepName = `<code>${esc(sweep.corpus)}</code>`;
  const onSweep = `Corpus: ${sweepName} (${int(sweep.documents)} documents, ${int(sweep.distinctSignatures)} distinct signatures)`;
  const onText = `Corpus: ${textName} (${int(r.text.documents)} documents)`;
  const found = `found pairs % = PLEB's recall against hamming-full on the same 1024-bit signatures at Hamming threshold ${r.threshold} (${int(r.referencePairs)} pairs)`;
  const sections: { title: string; note: string; head: string[]; rows: (string | number)[][]; svg?: string }[] = [];
  const iterAt = [50, 100, 150, 200, 250].map((k) => [k, r.iterations[k]?.[1] ?? NaN] as [number, number]);
  sections.push({
    title: "Figure 2.5 — Hamming vs cosine similarity (1024 bits)",
    note: `${onText}. ${int(r.scatter.length)} pairs: all with cosine ≥ 0.2 and pseudo-random others. Unrelated documents still agree on about half of the bits.`,
    head: [],
    rows: [],
    svg: scatterSvg({ title: "Hamming vs cosine similarity", xLabel: "exact cosine", yLabel: "relative Hamming similarity", x: [0, 1], y: [0.3, 1] }, [
      { name: "document pair", color: OURS, points: r.scatter },
    ]),
  });
  sections.push({
    title: `Table 2.1 — found pairs % by beam (iter_count 100, shift_count 50, threshold ${r.threshold})`,
    note: `${onSweep}; ${found}.`,
    head: ["beam", "found % (here)", "found % (thesis)"],
    rows: r.beam.map(([b, x]) => [b, f1(x), thesisAt(THESIS.beam, b)]),
    svg: lineChart({ title: "found pairs % vs beam", xLabel: "beam", yLabel: "found pairs %", x: [55, 95], y: [Math.max(0, 10 * Math.floor((Math.min(...r.beam.map((p) => p[1]), ...THESIS.beam.map((p) => p[1])) - 10) / 10)), 100] }, [
      { name: "here", color: OURS, points: r.beam },
      { name: "thesis", color: THEIRS, points: THESIS.beam, dashed: true },
    ]),
  });
  sections.push({
    title: `Tables 2.2, 2.3 — found pairs % by shift_count (iter_count ${r.shiftIterations}, threshold ${r.threshold})`,
    note: `${onSweep}; ${found}.${r.shiftIterations !== 500 ? ` The thesis ran 500 iterations on 644,566 documents; here ${r.shiftIterations} on ${int(sweep.documents)}.` : ""}`,
    head: ["shift_count", "beam 10 (here)", "beam 10 (thesis)", "beam 20 (here)", "beam 20 (thesis)"],
    rows: r.shift10.map(([s, x], k) => [s, f1(x), thesisAt(THESIS.shiftBeam10, s), f1(r.shift20[k][1]), thesisAt(THESIS.shiftBeam20, s)]),
    svg: lineChart({ title: "found pairs % vs shift_count", xLabel: "shift_count", yLabel: "found pairs %", x: [0, 100], y: [0, 100] }, [
      { name: "beam 10, here", color: OURS, points: r.shift10 },
      { name: "beam 20, here", color: OURS2, points: r.shift20 },
      { name: "beam 10, thesis", color: THEIRS, points: THESIS.shiftBeam10, dashed: true },
      { name: "beam 20, thesis", color: THEIRS2, points: THESIS.shiftBeam20, dashed: true },
    ]),
  });
  sections.push({
    title: `Table 2.4 — found pairs % by iter_count (beam 50, shift_count 40, threshold ${r.threshold})`,
    note: `${onSweep}; ${found}. Read off one run's per-iteration recall (pleb --reference).`,
    head: ["iter_count", "found % (here)", "found % (thesis)"],
    rows: iterAt.map(([k, x]) => [k, f1(x), thesisAt(THESIS.iterations, k)]),
    svg: lineChart({ title: "found pairs % vs iterations", xLabel: "iterations", yLabel: "found pairs %", x: [0, 250], y: [0, 100] }, [
      { name: "here (every iteration)", color: OURS, points: r.iterations },
      { name: "thesis", color: THEIRS, points: THESIS.iterations, dashed: true },
    ]),
  });
  sections.push({
    title: "Table 2.17 — signature length vs L1, L2, S",
    note: `${onText}. Over ${int(r.judgedPairs)} judged pairs; L1 in points, L2 in points², S in points (0–100 scale, as the thesis). The thesis's S is for tf vectors of its newspaper collection.`,
    head: ["bits", "distinct signatures", "L1", "L2", "S (here)", "S (thesis)"],
    rows: r.byLength.map((b) => [
      b.bits,
      b.distinct,
      (100 * b.deviation.l1).toFixed(3),
      (1e4 * b.deviation.l2).toFixed(3),
      (100 * b.deviation.s).toFixed(3),
      thesisAt(THESIS.lengthS, b.bits),
    ]),
    svg: lineChart(
      { title: "S vs signature length", xLabel: "bits", yLabel: "S (points)", x: [0, 4200], y: [0, Math.max(3, ...r.byLength.map((b) => 100 * b.deviation.s)) * 1.1] },
      [
        { name: "here", color: OURS, points: r.byLength.map((b) => [b.bits, 100 * b.deviation.s]) },
        { name: "thesis (tf)", color: THEIRS, points: THESIS.lengthS, dashed: true },
      ],
    ),
  });
  sections.push({
    title: "Table 2.59 — time (threshold 0.95, beam 50, shift_count 70)",
    note:
      `${onSweep}; ${int(r.referencePairs95)} pairs findable by hamming-full at 0.95${r.similarityNote ? `, ${r.similarityNote}` : ""}; ` +
      `preparation ${sweep.prepareSeconds.toFixed(1)} s. Thesis: 644,566 documents, 24,306 findable pairs, minutes on an Opteron 275.`,
    head: ["run", "seconds (here)", "found % (here)", "minutes (thesis)", "found % (thesis)"],
    rows: r.timing.map((t, k) => [t.run, t.seconds.toFixed(3), t.found === null ? "–" : f1(t.found), THESIS.timing[k][1], THESIS.timing[k][2] ?? "–"]),
  });
  const corpora =
    r.sweep === null
      ? `<p>Every experiment ran on ${textName}: ${int(r.text.documents)} documents, ${int(r.text.distinctSignatures)} distinct 1024-bit signatures, ${r.weighting} vectors.</p>`
      : [
          "<ul>",
          `<li>Figure 2.5 and Table 2.17 (Hamming vs exact cosine): ${textName}, ${int(r.text.documents)} documents of real text, ${int(r.text.distinctSignatures)} distinct 1024-bit signatures.</li>`,
          `<li>Tables 2.1–2.4 (PLEB sweeps, Hamming threshold ${r.threshold}${r.threshold === 0.8 ? " as in the thesis" : "; the thesis used 0.8 on a corpus 20 times larger, where found pairs % was as far from 100 % as it is here at the lower threshold"}) and Table 2.59 (timing, threshold 0.95): ${sweepName}, ${int(sweep.documents)} documents, ${int(sweep.distinctSignatures)} distinct signatures${sweep.description ? `, ${esc(sweep.description)}` : ""}. ` +
            `On ${int(r.text.distinctSignatures)} signatures PLEB finds every pair in every setting, so the sweeps need a larger corpus (the thesis's had 644,566 documents).</li>`,
          `<li>All: ${r.weighting} vectors; ${found}.</li>`,
          "</ul>",
        ].join("");
  const html = [
    "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>vertdup — thesis experiments</title>",
    "<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child{text-align:left}section{margin-bottom:2em}</style></head><body>",
    "<h1>vertdup — the thesis's experiments</h1>",
    corpora,
    `<p>Whole run: ${r.totalSeconds.toFixed(0)} s.</p>`,
    ...sections.map(
      (s) => `<section><h2>${s.title}</h2>${s.note ? `<p>${s.note}</p>` : ""}${s.svg ?? ""}${s.head.length > 0 ? htmlTable(s.head, s.rows) : ""}</section>`,
    ),
    "</body></html>",
  ].join("\n");
  const md = (s: string) => s.replace(/<\/?code>/g, "`").replace(/<li>/g, "\n- ").replace(/<\/?(ul|li|p)>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  const markdown = [
    "# vertdup — the thesis's experiments",
    "",
    md(corpora).trim(),
    "",
    `Whole run: ${r.totalSeconds.toFixed(0)} s.`,
    ...sections.filter((s) => s.head.length > 0).flatMap((s) => ["", `## ${s.title}`, "", ...(s.note ? [md(s.note), ""] : []), mdTable(s.head, s.rows)]),
    "",
  ].join("\n");
  return { html, markdown };
}
