import type { ParagraphReport } from "./output-step.js";

function share(part: number, whole: number): string {
  return whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : "-";
}

/** The lines printed on stderr at the end of `vertdup paragraphs`. */
export function paragraphSummary(r: ParagraphReport, reportPath?: string): string {
  const c = r.counts;
  const seconds = Object.values(r.phases).reduce((s, p) => s + p.seconds, 0);
  const verb = r.options.mark ? "marked to keep" : "kept";
  return [
    `vertdup paragraphs: ${r.output}${reportPath === undefined ? "" : ` (report ${reportPath})`}`,
    `  paragraphs ${c.paragraphsIn} → ${verb} ${c.paragraphsOut} (${share(c.paragraphsOut, c.paragraphsIn)}; ${c.duplicates} duplicates, ${c.stubs} stubs smoothed away)`,
    `  tokens     ${c.tokensIn} → ${c.tokensOut} (${share(c.tokensOut, c.tokensIn)})`,
    `  documents  ${c.docsIn} → ${c.docsOut} (${share(c.docsOut, c.docsIn)})`,
    r.options.count === "tokens" ? `  sequential (onion 1.2's kept-paragraph rule), ${seconds.toFixed(1)} s` : `  ${r.mode} mode, ${c.chunks} chunks, ${c.tables} bucket tables, ${seconds.toFixed(1)} s`,
  ].join("\n");
}
