import { barSvg, escapeXml as esc, lineSvg, scatterSvg, type Bar, type Series } from "../eval/svg-plot.js";
import type { CalibrationTableRow } from "../eval/calibration.js";
import { kishEffectiveSize, STRATUM_NAMES } from "../eval/stratified-sample.js";
import type { DocText } from "./doc-texts.js";
import { placeKey, SIMILARITY_BINS, type ClusterScan, type DocPlace, type PairScan, type SampledGroup } from "./output-scan.js";
import { MAX_DIFF_EDITS, tokenDiff, type TokenDiff } from "./token-diff.js";

/**
 * report.html of a run: one self-contained page (inline CSS and SVG, no script, no external
 * resource, a Content-Security-Policy that forbids loading any) whose size is bounded
 * whatever the corpus: every list is capped and every string from the corpus or the
 * options is cut and escaped. Everything but the last section (#timings: creation time and
 * phase timings) depends only on the outputs, the corpus and the seed.
 */

export interface ReportData {
  /** manifest.json as written by the run. */
  manifest: Record<string, unknown>;
  seed: number;
  pairs: PairScan;
  /** groups.tsv: its number of groups and the sampled ones. */
  groups: { groups: number; sample: SampledGroup[] };
  clusters: ClusterScan;
  /** Document beginnings by place (placeKey: sampled pairs and largest clusters' representatives). */
  texts: Map<string, DocText>;
  /** Why a document's text is missing, by place, when it could not be read. */
  missing: Map<string, string>;
  calibration?: CalibrationTableRow[];
  /** Why a calibration.tsv present was not shown. */
  calibrationNote?: string;
}

/** Caps that keep the page small: characters of a value, a token, an id; entries of a list. */
const MAX_VALUE = 300;
const MAX_TOKEN = 60;
const MAX_ID = 120;
const MAX_LIST = 50;
/** Tokens of a representative shown beside its cluster. */
export const SNIPPET_TOKENS = 40;
/** Tokens of context shown on each side of a difference; differences closer than twice this share one window. */
const CONTEXT = 12;
/** Windows of differences shown per pair (the rest are in the whole pair), and tokens shown of a window's side. */
const MAX_WINDOWS = 10;
const WINDOW_TOKENS = 100 + 2 * CONTEXT;

/** `s` cut to `n` UTF-16 units (never between the two halves of a surrogate pair). */
function cut(s: string, n: number): string {
  if (s.length <= n) return s;
  const end = /[\ud800-\udbff]/.test(s[n - 1]) ? n - 1 : n;
  return `${s.slice(0, end)}…`;
}
const text = (s: string, n = MAX_VALUE) => esc(cut(s, n));
const id = (s: string) => `<code>${text(s, MAX_ID)}</code>`;
/** 1234567 → 1,234,567 (fixed, not the locale's). */
/** Integers with thousands separators; fractions to 4 decimals (never grouped). */
const count = (n: number) => (Number.isInteger(n) ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",") : String(Number(n.toFixed(4))));

const STYLE = `
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}
.pair{border:1px solid #ccc;border-radius:4px;margin:1em 0;padding:.5em}
.pair h3{font-size:1em;margin:.2em 0 .5em}
.docs{display:grid;grid-template-columns:1fr 1fr;gap:1em}
.doc{font-size:.9em;line-height:1.5;overflow-wrap:anywhere}
.doc mark{background:#ffd27f}
.gap{grid-column:1/-1;color:#666;font-size:.85em;font-style:italic}
details{margin-top:.5em}summary{cursor:pointer;color:#336}
.note{color:#666;font-size:.9em}
.plots{display:flex;flex-wrap:wrap;gap:1em}
mark{background:#ffd27f}
.kv{display:inline-block;margin-right:1.2em;white-space:nowrap}.kv b{font-weight:600;color:#555}
`;

/** A manifest value: an object as `key value` items, lists and strings capped. */
function valueHtml(v: unknown): string {
  if (Array.isArray(v)) {
    const shown = v.slice(0, MAX_LIST).map(valueHtml).join("<br>");
    return v.length > MAX_LIST ? `${shown}<br><span class="note">… and ${count(v.length - MAX_LIST)} more</span>` : shown;
  }
  if (v !== null && typeof v === "object") {
    const items = Object.entries(v).slice(0, MAX_LIST);
    return items.map(([k, x]) => `<span class="kv"><b>${text(k)}</b> ${valueHtml(x)}</span>`).join(" ");
  }
  return typeof v === "number" ? count(v) : typeof v === "string" ? text(v) : text(JSON.stringify(v) ?? "");
}

/**
 * Manifest entries that vary with --workers, --chunk-size or the clock: shown in #timings only;
 * `files`, the checksums readers check the output set by (pleb-log.tsv's with its seconds), not at all.
 */
const VARYING = ["created", "phases", "files"];
const VARYING_COUNTS = ["shards"];

function parametersSection(m: Record<string, unknown>): string {
  const counts = m.counts !== null && typeof m.counts === "object" ? Object.fromEntries(Object.entries(m.counts).filter(([k]) => !VARYING_COUNTS.includes(k))) : m.counts;
  const shown = Object.entries({ ...m, counts }).filter(([k]) => !VARYING.includes(k)).slice(0, MAX_LIST);
  return `<section id="parameters"><h2>Parameters and counts</h2>
<table>${shown.map(([k, v]) => `<tr><th>${text(k)}</th><td>${valueHtml(v)}</td></tr>`).join("\n")}</table></section>`;
}

/** Sizes up to this are plotted one point per size; larger ones in bins (the plot's size stays bounded). */
const EXACT_SIZES = 1000;
/** Bins per doubling of the size beyond EXACT_SIZES. */
const BINS_PER_DOUBLING = 16;

/**
 * The cluster-size distribution as points (size, clusters of that size): one per size up to
 * EXACT_SIZES, then one per bin of sizes [b, b·2^(1/16)) at its lower edge with the mean
 * number of clusters per size of the bin, so that both parts are on one scale.
 */
export function sizePoints(sizes: Uint32Array): [number, number][] {
  const exact = new Float64Array(EXACT_SIZES + 1);
  const binned: number[] = [];
  for (const s of sizes) {
    if (s <= EXACT_SIZES) exact[s]++;
    else {
      const k = Math.floor(Math.log2(s / EXACT_SIZES) * BINS_PER_DOUBLING);
      binned[k] = (binned[k] ?? 0) + 1;
    }
  }
  const points: [number, number][] = [];
  exact.forEach((n, s) => n > 0 && points.push([s, n]));
  binned.forEach((n, k) => {
    const from = Math.ceil(EXACT_SIZES * 2 ** (k / BINS_PER_DOUBLING));
    const to = Math.ceil(EXACT_SIZES * 2 ** ((k + 1) / BINS_PER_DOUBLING));
    points.push([from, n / Math.max(1, to - from)]);
  });
  return points;
}

function tokensHtml(tokens: readonly string[], same?: Uint8Array): string {
  return tokens.map((t, k) => (same !== undefined && same[k] === 0 ? `<mark>${text(t, MAX_TOKEN)}</mark>` : text(t, MAX_TOKEN))).join(" ");
}

function snippet(doc: DocText | undefined, tokens: number): string {
  if (doc === undefined) return "";
  const shown = doc.tokens.slice(0, tokens);
  return `${tokensHtml(shown)}${doc.total > shown.length ? " …" : ""}`;
}

/** A document's position: in the corpus, or with --against in its source (an index, or the new inputs). */
function position(p: DocPlace, sourced: boolean): string {
  if (!sourced) return `#${p.ordinal + 1}`;
  return p.source === "" ? `new #${p.ordinal + 1}` : `#${p.ordinal + 1} of ${text(p.source, MAX_ID)}`;
}

/** An id of pairs.tsv, followed by its index when it is an old document (--against). */
const pairId = (s: string, source: string | undefined) => `${id(s)}${source === undefined || source === "" ? "" : ` <span class="note">(${text(source, MAX_ID)})</span>`}`;

function clustersSection(d: ReportData): string {
  const c = d.clusters;
  const documents = typeof (d.manifest.counts as Record<string, unknown> | undefined)?.documents === "number" ? ((d.manifest.counts as Record<string, number>).documents) : undefined;
  const head = c.sourced
    ? `<p>${count(c.documents)} documents in ${count(c.sizes.length)} clusters with a new document; clusters of old documents alone are not written. Positions are in each document's source: its index, or the new inputs.</p>`
    : `<p>${count(c.documents)} documents in ${count(c.sizes.length)} clusters of two or more${documents === undefined ? "" : ` (of ${count(documents)} documents; the other ${count(documents - c.documents)} are in no cluster)`}.</p>`;
  if (c.sizes.length === 0) return `<section id="clusters"><h2>Clusters</h2>${head}</section>`;
  const points = sizePoints(c.sizes);
  const ys = points.map((p) => p[1]);
  const plot = scatterSvg(
    {
      title: "Cluster sizes (log–log)",
      xLabel: `cluster size (beyond ${EXACT_SIZES}: bins, clusters per size)`,
      yLabel: "clusters of that size",
      x: [1, Math.max(10, points[points.length - 1][0] * 2)],
      y: [Math.min(0.5, Math.min(...ys) / 2), Math.max(...ys) * 2],
      logX: true,
      logY: true,
    },
    [{ name: "clusters", color: "#4477aa", points }],
    3,
  );
  const rows = c.largest.map(
    (l, k) =>
      `<tr><td class="n">${k + 1}</td><td class="n">${l.cluster}</td><td class="n">${count(l.size)}</td><td>${id(l.representativeId)} <span class="note">${position(l.representative, c.sourced)}</span></td><td>${l.members.map(id).join(" ")}${l.size - 1 > l.members.length ? " …" : ""}</td><td class="doc">${representativeSnippet(d, l.representative)}</td></tr>`,
  );
  return `<section id="clusters"><h2>Clusters</h2>${head}
<div class="plots">${plot}</div>
<h3>The ${c.largest.length} largest clusters</h3>
<table id="largest"><tr><th>#</th><th>cluster</th><th>size</th><th>representative (${c.sourced ? "position in its source" : "corpus position"})</th><th>first other members</th><th>beginning of the representative</th></tr>
${rows.join("\n")}</table></section>`;
}

function representativeSnippet(d: ReportData, p: DocPlace): string {
  return d.missing.has(placeKey(p)) ? `<span class="note">text not shown</span>` : snippet(d.texts.get(placeKey(p)), SNIPPET_TOKENS);
}

function histogram(title: string, bins: Float64Array): string {
  const bars: Bar[] = [];
  bins.forEach((n, k) => bars.push({ from: k / SIMILARITY_BINS, to: (k + 1) / SIMILARITY_BINS, count: n }));
  const first = bars.findIndex((b) => b.count > 0);
  const from = Math.floor(bars[first].from * 10) / 10;
  return barSvg({ title, xLabel: "similarity", yLabel: "pairs", x: [from, 1], y: [0, Math.max(...bins)] }, bars.slice(first));
}

function similaritySection(d: ReportData): string {
  const p = d.pairs;
  const similarity = typeof d.manifest.similarity === "string" ? d.manifest.similarity : "similarity";
  if (p.pairs === 0) return `<section id="similarity"><h2>Similarity of the pairs</h2><p>pairs.tsv holds no pair.</p></section>`;
  const plots = [histogram("pairs.tsv: similarity", p.similarity), ...(p.cosine === undefined ? [] : [histogram("pairs.tsv: exact cosine", p.cosine)])];
  return `<section id="similarity"><h2>Similarity of the pairs</h2>
<p>${count(p.pairs)} lines of pairs.tsv; similarity: ${text(similarity)}.</p>
<div class="plots">${plots.join("\n")}</div></section>`;
}

/** A region of a diff: tokens [a0, a1) of a against [b0, b1) of b. */
interface Region {
  a0: number;
  a1: number;
  b0: number;
  b1: number;
}

/**
 * The windows of a diff: each run of differing tokens with CONTEXT common tokens on each
 * side, windows whose contexts would touch merged into one. Empty when the lists are equal.
 */
export function diffWindows({ aSame, bSame }: TokenDiff): Region[] {
  const n = aSame.length;
  const m = bSame.length;
  const windows: Region[] = [];
  for (let i = 0, j = 0; i < n || j < m; ) {
    if (i < n && j < m && aSame[i] === 1 && bSame[j] === 1) {
      i++;
      j++;
      continue;
    }
    const from = { a: i, b: j };
    while (i < n && aSame[i] === 0) i++;
    while (j < m && bSame[j] === 0) j++;
    const last = windows[windows.length - 1];
    // Common tokens pair up in order, so the run before this one is as long on both sides.
    if (last !== undefined && from.a - last.a1 <= CONTEXT) {
      last.a1 = Math.min(n, i + CONTEXT);
      last.b1 = Math.min(m, j + CONTEXT);
    } else {
      const before = Math.min(CONTEXT, from.a - (last === undefined ? 0 : last.a1));
      windows.push({ a0: from.a - before, a1: Math.min(n, i + CONTEXT), b0: from.b - before, b1: Math.min(m, j + CONTEXT) });
    }
  }
  return windows;
}

const gap = (same: number, where: string) => (same > 0 ? `<div class="gap">… ${count(same)} tokens the same ${where}…</div>` : "");

/**
 * The cells of two texts' differences: windows of context side by side (one row each, the
 * common runs between them counted), then the whole pair on demand.
 */
function diffCells(a: DocText, b: DocText, whole: number): { rows: string; after: string } {
  const diff = tokenDiff(a.tokens, b.tokens);
  const longer = a.tokens.length > whole || b.tokens.length > whole ? ` (the first ${count(whole)} tokens of each)` : "";
  const shownWhole = (same?: TokenDiff) =>
    `<details><summary>the whole pair${longer}</summary><div class="docs whole"><div class="doc">${tokensHtml(a.tokens.slice(0, whole), same?.aSame)}</div><div class="doc">${tokensHtml(b.tokens.slice(0, whole), same?.bSame)}</div></div></details>`;
  if (diff === null) return { rows: "", after: `<p class="note">More than ${count(MAX_DIFF_EDITS)} tokens apart: not aligned.</p>${shownWhole()}` };
  const windows = diffWindows(diff);
  if (windows.length === 0) return { rows: "", after: `<p class="note">The ${count(a.tokens.length)} tokens compared are the same in both.</p>${shownWhole(diff)}` };
  const rows: string[] = [];
  let at = 0;
  for (const w of windows.slice(0, MAX_WINDOWS)) {
    rows.push(gap(w.a0 - at, at === 0 ? "at the start " : ""));
    const side = (x: DocText, same: Uint8Array, from: number, to: number) => {
      const end = Math.min(to, from + WINDOW_TOKENS);
      return `<div class="doc">${tokensHtml(x.tokens.slice(from, end), same.subarray(from, end))}${end < to ? ` <span class="note">… ${count(to - end)} more (in the whole pair)</span>` : ""}</div>`;
    };
    rows.push(side(a, diff.aSame, w.a0, w.a1) + side(b, diff.bSame, w.b0, w.b1));
    at = w.a1;
  }
  if (windows.length > MAX_WINDOWS) rows.push(`<div class="gap">… and ${count(windows.length - MAX_WINDOWS)} more regions that differ (in the whole pair)</div>`);
  else rows.push(gap(a.tokens.length - at, "to the end "));
  return { rows: rows.join(""), after: shownWhole(diff) };
}

/** A sampled pair: its head, then its texts' differences side by side (or why a text is not shown). */
function pairHtml(d: ReportData, kind: string, head: string, at: { a: DocPlace; b: DocPlace } | undefined, whole: number): string {
  const { sourced } = d.clusters;
  const a = at === undefined ? undefined : d.texts.get(placeKey(at.a));
  const b = at === undefined ? undefined : d.texts.get(placeKey(at.b));
  if (at === undefined || (a === undefined && b === undefined)) return `<div class="pair ${kind}">${head}<p class="note">texts not shown</p></div>`;
  const note = (x: DocText | undefined, place: DocPlace) =>
    x === undefined
      ? `<div class="note">${position(place, sourced)}: text not shown (${text(d.missing.get(placeKey(place)) ?? "not found")})</div>`
      : `<div class="note">${position(place, sourced)}, ${count(x.total)} tokens${x.total > x.tokens.length ? `, the first ${count(x.tokens.length)} compared` : ""}</div>`;
  if (a === undefined || b === undefined) {
    const side = (x: DocText | undefined, place: DocPlace) => `<div class="doc">${note(x, place)}${x === undefined ? "" : tokensHtml(x.tokens.slice(0, whole))}</div>`;
    return `<div class="pair ${kind}">${head}<div class="docs">${side(a, at.a)}${side(b, at.b)}</div></div>`;
  }
  const { rows, after } = diffCells(a, b, whole);
  return `<div class="pair ${kind}">${head}<div class="docs"><div class="doc">${note(a, at.a)}</div><div class="doc">${note(b, at.b)}</div>${rows}</div>${after}</div>`;
}

function sampleSection(d: ReportData, whole: number): string {
  const p = d.pairs;
  const g = d.groups;
  const links = p.sample.map((s, k) => {
    const head = `<h3>pairs.tsv line ${count(s.line)}: ${pairId(s.a, s.sourceA)} and ${pairId(s.b, s.sourceB)} — similarity ${s.similarity.toFixed(4)}${s.cosine === undefined ? "" : `, cosine ${s.cosine.toFixed(4)}`}</h3>`;
    return pairHtml(d, "link", head, d.clusters.pairPlaces[k], whole);
  });
  const groups = g.sample.map((s) => {
    const head = `<h3>groups.tsv group ${count(s.group)} (${count(s.size)} identical documents): ${pairId(s.a, s.placeA.source)} and ${pairId(s.b, s.placeB.source)}</h3>`;
    return pairHtml(d, "group", head, { a: s.placeA, b: s.placeB }, whole);
  });
  const notes = [...new Set(d.missing.values())].map((note) => `<p class="note">Texts not shown: ${text(note)}</p>`).join("\n");
  return `<section id="sample" data-pairs="${p.sample.length}" data-groups="${g.sample.length}"><h2>A sample of pairs</h2>
<p>Drawn at random (seed ${d.seed}) in two strata: ${p.sample.length} of the ${count(p.pairs)} lines of pairs.tsv (pairs between groups), and ${g.sample.length} of the ${count(g.groups)} groups of groups.tsv (documents identical under the method), each shown by its first two documents. Each pair shows where its two texts differ — tokens <mark>highlighted</mark> are not in the longest common subsequence of the two — with ${CONTEXT} tokens of context, and the whole pair on demand.${d.clusters.sourced ? " An old document is named with its index, and its text read from the inputs the index records." : ""}</p>
${notes}${links.join("\n")}${groups.length > 0 ? `\n<h3>Identical groups</h3>\n${groups.join("\n")}` : ""}</section>`;
}

function calibrationSection(d: ReportData): string {
  if (d.calibrationNote !== undefined) return `<section id="calibration"><h2>Calibration</h2><p class="note">${text(d.calibrationNote)}</p></section>`;
  const rows = d.calibration;
  if (rows === undefined || rows.length === 0) return "";
  const line = (name: string, color: string, key: keyof CalibrationTableRow, dashed = false): Series => ({ name, color, dashed, points: rows.filter((r) => !Number.isNaN(r[key])).map((r) => [r.threshold, r[key]]) });
  const xs = rows.map((r) => r.threshold);
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const bottom = Math.max(0, Math.floor(Math.min(...rows.flatMap((r) => [r.recallLow, r.precisionLow])) * 10) / 10 - 0.1);
  const plot = lineSvg({ title: "Recall and precision against the exact reference (95 % intervals dashed)", xLabel: "threshold", yLabel: "fraction", x: lo < hi ? [lo, hi] : [lo - 0.01, hi + 0.01], y: [bottom, 1] }, [
    line("recall", "#228833", "recall"),
    line("", "#228833", "recallLow", true),
    line("", "#228833", "recallHigh", true),
    line("precision", "#aa3377", "precision"),
    line("", "#aa3377", "precisionLow", true),
    line("", "#aa3377", "precisionHigh", true),
  ]);
  // NaN: no pair counted at that threshold (an empty field of calibration.tsv), or an older file without the trials.
  const f = (x: number) => (Number.isNaN(x) ? "–" : x.toFixed(4));
  const n = (x: number) => (Number.isNaN(x) ? "–" : count(Number(x.toFixed(1))));
  return `<section id="calibration"><h2>Calibration</h2>
<div class="plots">${plot}</div>
${designHtml(d.manifest)}
<table id="calibration-table"><tr><th>threshold</th><th>recall</th><th>95 % interval</th><th>effective pairs</th><th>precision</th><th>95 % interval</th><th>effective pairs</th></tr>
${rows.map((r) => `<tr><td class="n">${f(r.threshold)}</td><td class="n">${f(r.recall)}</td><td class="n">${f(r.recallLow)}–${f(r.recallHigh)}</td><td class="n">${n(r.recallTrials)}</td><td class="n">${f(r.precision)}</td><td class="n">${f(r.precisionLow)}–${f(r.precisionHigh)}</td><td class="n">${n(r.precisionTrials)}</td></tr>`).join("\n")}</table>
<p class="note">Effective pairs: the number of independent pairs of the interval shown — the pairs counted for a uniform sample (Wilson), R̂(1 − R̂)/v̂ shrunk by the variance's degrees of freedom for a stratified one (its pairs move together with their document; Clopper–Pearson).</p></section>`;
}

const isCounts = (v: unknown): v is number[] => Array.isArray(v) && v.length <= MAX_LIST && v.every((x) => typeof x === "number" && x >= 0);

/**
 * The calibration's sampling design, from manifest.json's `calibration` (nothing when it has
 * none): uniform, or the strata that hold documents with their documents N_h, draws n_h,
 * share of the sample and weight N_h/n_h, and Kish's effective sample size.
 */
function designHtml(m: Record<string, unknown>): string {
  const c = m.calibration;
  if (c === null || typeof c !== "object") return "";
  const { sampling, sampledDocuments, strata } = c as Record<string, unknown>;
  if (typeof sampledDocuments !== "number") return "";
  if (sampling === "uniform") {
    return `<p id="design" data-sampling="uniform">Sample: ${count(sampledDocuments)} documents drawn uniformly; every counted pair had the same chance (effective sample size ${count(sampledDocuments)} documents).</p>`;
  }
  const { documents, sampled } = (strata ?? {}) as Record<string, unknown>;
  if (sampling !== "stratified" || !isCounts(documents) || !isCounts(sampled) || documents.length !== sampled.length) return "";
  const rows = documents.flatMap((big, h) => {
    if (big === 0) return [];
    const name = STRATUM_NAMES[h] ?? `stratum ${h}`;
    const share = sampledDocuments > 0 ? `${((100 * sampled[h]) / sampledDocuments).toFixed(1)} %` : "–";
    const weight = sampled[h] > 0 ? count(Number((big / sampled[h]).toFixed(2))) : "–";
    return [`<tr><td>${text(name)}</td><td class="n">${count(big)}</td><td class="n">${count(sampled[h])}</td><td class="n">${share}</td><td class="n">${weight}</td></tr>`];
  });
  const effective = kishEffectiveSize(documents, sampled);
  return `<h3>Sampling design: stratified</h3>
<p>${count(sampledDocuments)} documents drawn by strata of the run's clusters, fixed before the draw: half to the documents alone, the rest in proportion to the clustered strata's documents, uniformly within a stratum; each sampled document counts for weight = documents / sampled of its stratum. Effective sample size (Kish) <span id="effective-size">${count(Number(effective.toFixed(1)))}</span> documents: what a uniform sample with these weights' spread is worth for a mean over the documents; the recall's own effective pairs are in the table below.</p>
<table id="design" data-sampling="stratified" data-strata="${rows.length}"><tr><th>stratum</th><th>documents</th><th>sampled</th><th>share of the sample</th><th>weight</th></tr>
${rows.join("\n")}</table>`;
}

function timingsSection(m: Record<string, unknown>): string {
  const phases = (m.phases ?? {}) as Record<string, { seconds?: number; peakRssMiB?: number }>;
  const shards = (m.counts as Record<string, unknown> | undefined)?.shards;
  const rows = Object.entries(phases).slice(0, MAX_LIST).map(([name, t]) => `<tr><td>${text(name)}</td><td class="n">${t.seconds ?? ""}</td><td class="n">${t.peakRssMiB ?? ""}</td></tr>`);
  return `<section id="timings"><h2>Timings</h2>
<p>Created ${text(String(m.created ?? ""))}${typeof shards === "number" ? `; the corpus was read in ${count(shards)} shards` : ""}. This section varies from run to run (the time, --workers, --chunk-size); the others depend only on the corpus, the options and the seed.</p>
<table><tr><th>phase</th><th>seconds</th><th>peak RSS (MiB)</th></tr>
${rows.join("\n")}</table></section>`;
}

/** The page; `whole`: tokens of each sampled document shown in its whole pair. */
export function reportHtml(d: ReportData, whole: number): string {
  const method = typeof d.manifest.method === "string" ? d.manifest.method : "";
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>vertdup report: ${text(method)}</title><style>${STYLE}</style></head>
<body><h1>vertdup run: ${text(method)}</h1>
${parametersSection(d.manifest)}
${clustersSection(d)}
${similaritySection(d)}
${sampleSection(d, whole)}
${calibrationSection(d)}
${timingsSection(d.manifest)}
</body></html>
`;
}
