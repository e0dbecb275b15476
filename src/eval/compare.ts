import { DeviationSum, retrieval, type Deviation, type Retrieval } from "./measures.js";
import type { PairTable } from "./pairs-file.js";
import type { VirtualPairs } from "./run-pairs.js";
import { sweep, type SweepRow } from "./sweep.js";
import { meetsThreshold } from "../util/similarity-threshold.js";

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

/**
 * Compares the candidate's document pairs (a run's pairs, expanded virtually through its
 * groups) with the reference pairs (see measures.ts for the definitions). Both were read
 * into one id table, so equal ids are equal ordinals.
 */
export function comparePairs(reference: PairTable, candidate: VirtualPairs, opts: CompareOptions, scorer?: PairScorer): CompareReport {
  const hits = new Float64Array(candidate.entries + 1);
  let referencePairs = 0;
  for (let k = 0; k < reference.a.length; k++) {
    if (!meetsThreshold(reference.similarity[k], opts.referenceThreshold)) continue;
    referencePairs++;
    const e = candidate.find(reference.a[k], reference.b[k]);
    if (e >= 0) hits[e]++;
  }
  let candidatePairs = 0;
  let truePositives = 0;
  for (let e = 0; e <= candidate.entries; e++) {
    if (!meetsThreshold(candidate.similarity(e), opts.candidateThreshold)) continue;
    candidatePairs += candidate.weight(e);
    truePositives += hits[e];
  }
  const report: CompareReport = {
    reference: { path: reference.path, pairs: referencePairs, threshold: opts.referenceThreshold },
    candidate: { path: candidate.path, pairs: candidatePairs, threshold: opts.candidateThreshold },
    retrieval: retrieval(referencePairs, candidatePairs, truePositives),
    sweep: sweep(referencePairs, candidate, hits, opts.sweep),
  };
  if (scorer !== undefined) report.deviation = compareDeviation(reference, candidate, opts, scorer);
  return report;
}

/** L1, L2, S over the compared pairs: reference pairs ∪ candidate pairs, each above its threshold. */
function compareDeviation(reference: PairTable, candidate: VirtualPairs, opts: CompareOptions, scorer: PairScorer): Deviation & { skipped: number } {
  const ids = reference.ids;
  // Corpus ordinal of each interned id: −2 not looked up yet, −1 not in the corpus.
  const ordinal = new Int32Array(ids.length).fill(-2);
  const corpusOrdinal = (x: number) => {
    if (ordinal[x] === -2) ordinal[x] = scorer.ordinalOf(ids.get(x)) ?? -1;
    return ordinal[x];
  };
  const sum = new DeviationSum();
  let skipped = 0;
  const score = (x: number, y: number) => {
    const a = corpusOrdinal(x);
    const b = corpusOrdinal(y);
    const cos = a < 0 || b < 0 ? NaN : scorer.cosine(a, b);
    const ham = a < 0 || b < 0 ? NaN : scorer.hamming(a, b);
    if (Number.isNaN(cos) || Number.isNaN(ham)) skipped++;
    else sum.add(cos, ham);
  };
  candidate.forEachPair(opts.candidateThreshold, score);
  for (let k = 0; k < reference.a.length; k++) {
    if (!meetsThreshold(reference.similarity[k], opts.referenceThreshold)) continue;
    const e = candidate.find(reference.a[k], reference.b[k]);
    if (e < 0 || !meetsThreshold(candidate.similarity(e), opts.candidateThreshold)) score(reference.a[k], reference.b[k]);
  }
  return { ...sum.result(), skipped };
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
