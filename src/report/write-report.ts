import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { CLUSTERS_FILE } from "../clusters/clusters-tsv.js";
import { PAIRS_FILE } from "../output/graph-outputs.js";
import { writeAtomic } from "../util/atomic.js";
import { VertdupError } from "../util/errors.js";
import { CALIBRATION_FILE, readCalibration, type CalibrationTableRow } from "../eval/calibration.js";
import { readDocTexts, type DocText } from "./doc-texts.js";
import { scanClusters, scanPairs } from "./output-scan.js";
import { reportHtml, SNIPPET_TOKENS } from "./report-html.js";

export const REPORT_FILE = "report.html";

/** Bounds of the report: pairs sampled, tokens shown per document, largest clusters listed, members named per cluster. */
export const REPORT_LIMITS = { pairs: 20, tokens: 200, clusters: 20, members: 5 } as const;

export interface ReportOptions {
  /** Seed of the pair sample (the run's). */
  seed: number;
  /** The run's --max-doc-bytes, for reading the corpus again. */
  maxDocBytes?: number;
  /** Called with a note for the user when a part of the report cannot be made (texts, calibration). */
  warn: (message: string) => void;
}

/**
 * Writes report.html into a run's output directory from what the run wrote there
 * (manifest.json, pairs.tsv, clusters.tsv, calibration.tsv if present) and the sampled
 * documents' beginnings, read again from the corpus named in the manifest. A corpus that
 * cannot be read again (standard input, a file moved or changed) or a calibration.tsv that
 * cannot be read leaves a note in the report and a warning, not a failed run.
 */
export async function writeReport(outdir: string, opts: ReportOptions): Promise<void> {
  const manifest = JSON.parse(await readFile(join(outdir, "manifest.json"), "utf8")) as Record<string, unknown>;
  const pairs = await scanPairs(join(outdir, PAIRS_FILE), REPORT_LIMITS.pairs, opts.seed);
  const clusters = await scanClusters(join(outdir, CLUSTERS_FILE), pairs.sample, REPORT_LIMITS.clusters, REPORT_LIMITS.members);
  const inputs = Array.isArray(manifest.inputs) ? (manifest.inputs as string[]) : [];
  const idAttr = String((manifest.prepare as Record<string, unknown> | undefined)?.idAttr ?? "id");
  const { texts, note: textsNote } = await sampleTexts(inputs, clusters.pairOrdinals, clusters.largest.map((l) => l.representative), idAttr, opts);
  const samePlaces = clusters.pairOrdinals.every((at, k) => {
    if (Number.isNaN(at.a)) return true;
    const [a, b] = [texts.get(at.a), texts.get(at.b)];
    return a === undefined || b === undefined || (a.id === pairs.sample[k].a && b.id === pairs.sample[k].b);
  });
  let calibration: CalibrationTableRow[] | undefined;
  let calibrationNote: string | undefined;
  try {
    calibration = await readCalibration(join(outdir, CALIBRATION_FILE));
  } catch (err) {
    if (!(err instanceof VertdupError)) throw err;
    calibrationNote = err.message;
    opts.warn(`${REPORT_FILE}: calibration not shown: ${err.message}`);
  }
  const note = samePlaces ? textsNote : "the corpus is not the one of the run (a document's id differs)";
  if (note !== textsNote) opts.warn(`${REPORT_FILE}: document texts not shown: ${note}`);
  const data = {
    manifest,
    seed: opts.seed,
    pairs,
    clusters,
    texts: note === undefined ? texts : new Map<number, DocText>(),
    ...(note === undefined ? {} : { textsNote: note }),
    ...(calibration === undefined ? {} : { calibration }),
    ...(calibrationNote === undefined ? {} : { calibrationNote }),
  };
  await writeAtomic(join(outdir, REPORT_FILE), reportHtml(data, REPORT_LIMITS.tokens));
}

async function sampleTexts(
  inputs: readonly string[],
  pairs: readonly { a: number; b: number }[],
  representatives: readonly number[],
  idAttr: string,
  opts: ReportOptions,
): Promise<{ texts: Map<number, DocText>; note?: string }> {
  const ordinals = [...pairs.flatMap((p) => [p.a, p.b]), ...representatives];
  if (ordinals.length === 0) return { texts: new Map() };
  if (inputs.includes("-")) return { texts: new Map(), note: "the corpus was read from standard input and cannot be read again" };
  try {
    return { texts: await readDocTexts(inputs, ordinals, { idAttr, tokens: Math.max(REPORT_LIMITS.tokens, SNIPPET_TOKENS), maxDocBytes: opts.maxDocBytes }) };
  } catch (err) {
    if (!(err instanceof VertdupError)) throw err;
    opts.warn(`${REPORT_FILE}: document texts not shown: ${err.message}`);
    return { texts: new Map(), note: err.message };
  }
}
