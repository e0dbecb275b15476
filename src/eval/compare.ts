import { compareSets, deviation, type Deviation, type Retrieval } from "./measures.js";
import type { PairTable } from "./pairs-file.js";
import { sweep, type SweepRow } from "./sweep.js";

export interface CompareOptions {
  /** Reference pairs count when their similarity is ≥ this (0: all pairs of the file). */
  referenceThreshold: number;
  /** Candidate pairs count when their similarity is ≥ this (0: all pairs of the file). */
  candidateThreshold: number;
  /** Candidate thresholds of the sweep table. */
  sweep: number[];
}

/** Exact cosine and Hamming similarity of a pair of document ids (NaN: not computable). */
export interface PairScorer {
  ordinalOf(id: string): number | undefined;
  cosine(a: number, b: number): number;
  hamming(a: number, b: number): number;
}

export interface CompareReport {
  reference: { path: string; pairs: number; threshold: number };
  candidate: { path: string; pairs: number; threshold: number };
  retrieval: Retrieval;
  sweep: SweepRow[];
  /** Over the compared pairs (reference ∪ candidate) whose both similarities are known. */
  deviation?: Deviation & { skipped: number };
}

function atLeast(table: PairTable, threshold: number): Map<string, number> {
  return new Map([...table.similarity].filter(([, s]) => s >= threshold));
}

/** Compares candidate pairs with reference pairs (see measures.ts for the definitions). */
export function comparePairs(reference: PairTable, candidate: PairTable, opts: CompareOptions, scorer?: PairScorer): CompareReport {
  const ref = atLeast(reference, opts.referenceThreshold);
  const cand = atLeast(candidate, opts.candidateThreshold);
  const refKeys = new Set(ref.keys());
  const report: CompareReport = {
    reference: { path: reference.path, pairs: ref.size, threshold: opts.referenceThreshold },
    candidate: { path: candidate.path, pairs: cand.size, threshold: opts.candidateThreshold },
    retrieval: compareSets(refKeys, new Set(cand.keys())),
    sweep: sweep(refKeys, candidate.similarity, opts.sweep),
  };
  if (scorer !== undefined) {
    const c: number[] = [];
    const h: number[] = [];
    let skipped = 0;
    for (const key of new Set([...ref.keys(), ...cand.keys()])) {
      const [x, y] = key.split("\t");
      const a = scorer.ordinalOf(x);
      const b = scorer.ordinalOf(y);
      const cos = a === undefined || b === undefined ? NaN : scorer.cosine(a, b);
      const ham = a === undefined || b === undefined ? NaN : scorer.hamming(a, b);
      if (Number.isNaN(cos) || Number.isNaN(ham)) skipped++;
      else {
        c.push(cos);
        h.push(ham);
      }
    }
    report.deviation = { ...deviation(c, h), skipped };
  }
  return report;
}

const pct = (x: number) => (100 * x).toFixed(2).padStart(6);

/** The report as text tables for a terminal. */
export function formatReport(r: CompareReport): string {
  const q = r.retrieval;
  const lines = [
    `reference: ${r.reference.path} (${r.reference.pairs} pairs ≥ ${r.reference.threshold})`,
    `candidate: ${r.candidate.path} (${r.candidate.pairs} pairs ≥ ${r.candidate.threshold})`,
    `found ${q.truePositives} of ${q.reference}: recall ${pct(q.recall)} %, precision ${pct(q.precision)} %, F ${pct(q.f)} %`,
  ];
  if (r.deviation !== undefined) {
    const d = r.deviation;
    lines.push(
      `Hamming vs cosine over ${d.pairs} compared pairs (${d.skipped} without vectors): ` +
        `L1 ${(100 * d.l1).toFixed(3)} points, L2 ${(1e4 * d.l2).toFixed(3)} points², S ${(100 * d.s).toFixed(3)} points (${d.bins} bins of 0.01)`,
    );
  }
  lines.push("", "candidate ≥  candidate  found   precision %  recall %   F %");
  for (const s of r.sweep) {
    lines.push(
      `${s.threshold.toFixed(4).padStart(11)}  ${String(s.candidate).padStart(9)}  ${String(s.truePositives).padStart(5)}   ${pct(s.precision).padStart(11)}  ${pct(s.recall).padStart(8)}  ${pct(s.f)}`,
    );
  }
  return lines.join("\n") + "\n";
}
