import { join } from "node:path";
import type { MethodManifest, RunManifest } from "../../methods/manifest.js";

/** Where the pairs are and a one-line summary of the run. */
export function runSummary(outdir: string, m: RunManifest): string {
  const c = m.counts;
  const seconds = Object.values(m.phases).reduce((s, p) => s + p.seconds, 0);
  return (
    `pairs: ${join(outdir, "pairs.tsv")}, clusters: ${join(outdir, "clusters.tsv")}\n` +
    `${c.documents} documents, ${c.tokens} tokens, ${c.distinctSignatures} distinct signatures → ` +
    `${c.pairs} pairs ${m.pleb.cosineThreshold === undefined ? `≥ ${m.pleb.threshold}` : `at cosine ≥ ${m.pleb.cosineThreshold} (candidates ≥ ${m.pleb.threshold.toFixed(4)})`} (--pairs ${m.pleb.pairs}), ${m.clusters?.clusters ?? 0} clusters, ` +
    `${m.clusters?.duplicates ?? 0} duplicates in ${seconds.toFixed(1)} s`
  );
}

/** The same for a run of another method. */
export function methodSummary(outdir: string, m: MethodManifest): string {
  const c = m.counts;
  const seconds = Object.values(m.phases).reduce((s, p) => s + p.seconds, 0);
  return (
    `pairs: ${join(outdir, "pairs.tsv")}, clusters: ${join(outdir, "clusters.tsv")}\n` +
    `${m.method}: ${c.documents} documents, ${c.tokens} tokens, ${c.candidates} candidates → ` +
    `${c.pairs} pairs, ${m.clusters.clusters} clusters, ${m.clusters.duplicates} duplicates in ${seconds.toFixed(1)} s`
  );
}
