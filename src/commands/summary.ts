import { join } from "node:path";
import type { RunManifest } from "../output/manifest.js";

/** Where the pairs are and a one-line summary of the run. */
export function runSummary(outdir: string, m: RunManifest): string {
  const c = m.counts;
  const seconds = Object.values(m.phases).reduce((s, p) => s + p.seconds, 0);
  return (
    `pairs: ${join(outdir, "pairs.tsv")}\n` +
    `${c.documents} documents, ${c.tokens} tokens, ${c.distinctSignatures} distinct signatures → ` +
    `${c.pairs} pairs ≥ ${m.pleb.threshold} in ${seconds.toFixed(1)} s`
  );
}
