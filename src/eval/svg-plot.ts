/**
 * Minimal self-contained SVG charts for the reports (no library, no scripts): a scatter
 * plot, a line chart with several series and a histogram of bars; linear or log10 axes with
 * ticks.
 */

export interface Series {
  /** Shown in the legend; an empty name leaves the series out of it. */
  name: string;
  points: [number, number][];
  color: string;
  /** Drawn as a dashed line (e.g. the thesis's own numbers). */
  dashed?: boolean;
}

export interface ChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  x: [number, number];
  y: [number, number];
  width?: number;
  height?: number;
  /** Log10 axes: the range and every value must be > 0. */
  logX?: boolean;
  logY?: boolean;
}

/** Text as HTML/XML character data or a quoted attribute value. */
export const escapeXml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const esc = escapeXml;

/** Powers of ten within [lo, hi] (at least the two around the range). */
function logTicks([lo, hi]: [number, number]): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) if (10 ** e >= lo * (1 - 1e-9) && 10 ** e <= hi * (1 + 1e-9)) out.push(10 ** e);
  return out.length > 0 ? out : [lo, hi];
}

function ticks([lo, hi]: [number, number]): number[] {
  const raw = (hi - lo) / 5;
  const step = [1, 2, 2.5, 5, 10].map((m) => m * 10 ** Math.floor(Math.log10(raw))).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(Number(t.toPrecision(10)));
  return out;
}

function frame(o: ChartOptions, body: (sx: (x: number) => number, sy: (y: number) => number) => string, legend: Series[]): string {
  const W = o.width ?? 560;
  const H = o.height ?? 360;
  const m = { l: 60, r: 20, t: 34, b: 48 };
  const scale = (log: boolean | undefined, [lo, hi]: [number, number]) => (log ? (v: number) => (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : (v: number) => (v - lo) / (hi - lo));
  const fx = scale(o.logX, o.x);
  const fy = scale(o.logY, o.y);
  const sx = (x: number) => m.l + fx(x) * (W - m.l - m.r);
  const sy = (y: number) => H - m.b - fy(y) * (H - m.t - m.b);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`,
    `<text x="${W / 2}" y="18" text-anchor="middle" font-size="13" font-weight="bold">${esc(o.title)}</text>`,
    `<rect x="${m.l}" y="${m.t}" width="${W - m.l - m.r}" height="${H - m.t - m.b}" fill="none" stroke="#888"/>`,
  ];
  for (const t of o.logX ? logTicks(o.x) : ticks(o.x)) {
    parts.push(`<line x1="${sx(t)}" x2="${sx(t)}" y1="${m.t}" y2="${H - m.b}" stroke="#eee"/>`);
    parts.push(`<text x="${sx(t)}" y="${H - m.b + 14}" text-anchor="middle">${t}</text>`);
  }
  for (const t of o.logY ? logTicks(o.y) : ticks(o.y)) {
    parts.push(`<line x1="${m.l}" x2="${W - m.r}" y1="${sy(t)}" y2="${sy(t)}" stroke="#eee"/>`);
    parts.push(`<text x="${m.l - 6}" y="${sy(t) + 4}" text-anchor="end">${t}</text>`);
  }
  parts.push(`<text x="${W / 2}" y="${H - 10}" text-anchor="middle">${esc(o.xLabel)}</text>`);
  parts.push(`<text transform="translate(14 ${H / 2}) rotate(-90)" text-anchor="middle">${esc(o.yLabel)}</text>`);
  parts.push(body(sx, sy));
  legend.filter((s) => s.name !== "").forEach((s, k) => {
    const y = m.t + 14 + 14 * k;
    parts.push(
      `<line x1="${m.l + 10}" x2="${m.l + 30}" y1="${y - 4}" y2="${y - 4}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="4 3"' : ""}/>`,
      `<text x="${m.l + 36}" y="${y}">${esc(s.name)}</text>`,
    );
  });
  parts.push("</svg>");
  return parts.join("\n");
}

export function scatterSvg(o: ChartOptions, series: Series[], radius = 1.6): string {
  return frame(
    o,
    (sx, sy) =>
      series
        .map((s) => s.points.map(([x, y]) => `<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="${radius}" fill="${s.color}" fill-opacity="0.5"/>`).join(""))
        .join("\n"),
    series,
  );
}

export function lineSvg(o: ChartOptions, series: Series[]): string {
  return frame(
    o,
    (sx, sy) =>
      series
        .map((s) => {
          const d = s.points.map(([x, y], k) => `${k === 0 ? "M" : "L"}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(" ");
          const dots = s.points.map(([x, y]) => `<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="2.5" fill="${s.color}"/>`).join("");
          return `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="4 3"' : ""}/>${dots}`;
        })
        .join("\n"),
    series,
  );
}

/** One bar of a histogram: the bin [from, to) and its count. */
export interface Bar {
  from: number;
  to: number;
  count: number;
}

/** A histogram: one bar per bin, from the axis (or from the bottom of a log y axis) to its count. */
export function barSvg(o: ChartOptions, bars: readonly Bar[], color = "#4477aa"): string {
  return frame(
    o,
    (sx, sy) =>
      bars
        .filter((b) => b.count > 0)
        .map((b) => {
          const x0 = sx(b.from);
          const x1 = sx(b.to);
          const top = sy(b.count);
          const bottom = sy(o.y[0]);
          return `<rect x="${x0.toFixed(1)}" y="${top.toFixed(1)}" width="${Math.max(0.5, x1 - x0 - 0.5).toFixed(1)}" height="${Math.max(0.5, bottom - top).toFixed(1)}" fill="${color}"><title>${b.from}–${b.to}: ${b.count}</title></rect>`;
        })
        .join(""),
    [],
  );
}
