import { type InputDigest, readIndex, type IndexManifest } from "../workdir/index-store.js";
import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { CLUSTERS_FILE } from "../output/clusters-tsv.js";
import { PAIRS_FILE } from "../output/graph-outputs.js";
import { GROUPS_FILE } from "../output/groups-tsv.js";
import { writeAtomic } from "../util/atomic.js";
import { VertdupError } from "../core/errors.js";
import { CALIBRATION_FILE, readCalibration, type CalibrationTableRow } from "../eval/calibration.js";

import { readDocTexts, type DocText, type DocTextOptions } from "./doc-texts.js";
import { placeKey, scanClusters, scanGroups, scanPairs, type DocPlace } from "./output-scan.js";
import { reportHtml, SNIPPET_TOKENS } from "./report-html.js";

export const REPORT_FILE = "report.html";

/**
 * Bounds of the report: lines of pairs.tsv and groups of groups.tsv sampled, tokens of a
 * sampled document compared and shown whole, largest clusters listed, members named per cluster.
 */
export const REPORT_LIMITS = { pairs: 20, groups: 10, compared: 10_000, whole: 2_000, clusters: 20, members: 5 } as const;

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
 * (manifest.json, pairs.tsv, groups.tsv, clusters.tsv, calibration.tsv if present) and the
 * sampled documents' texts (their first REPORT_LIMITS.compared tokens), read again from the corpus named in the manifest and, for the
 * documents of `--against` indices, from the inputs each index's batches record. Texts that
 * cannot be read again (standard input, a file moved or changed) or a calibration.tsv that
 * cannot be read leave a note in the report and a warning, not a failed run.
 */
export async function writeReport(outdir: string, opts: ReportOptions): Promise<void> {
  const manifest = JSON.parse(await readFile(join(outdir, "manifest.json"), "utf8")) as Record<string, unknown>;
  const pairs = await scanPairs(join(outdir, PAIRS_FILE), REPORT_LIMITS.pairs, opts.seed);
  const groups = await scanGroups(join(outdir, GROUPS_FILE), REPORT_LIMITS.groups, opts.seed);
  const clusters = await scanClusters(join(outdir, CLUSTERS_FILE), pairs.sample, REPORT_LIMITS.clusters, REPORT_LIMITS.members);
  const inputs = Array.isArray(manifest.inputs) ? (manifest.inputs as string[]) : [];
  const idAttr = String((manifest.prepare as Record<string, unknown> | undefined)?.idAttr ?? "id");
  // The id each shown document must have: a text under another id is of another corpus.
  const wanted = new Map<string, { place: DocPlace; id: string }>();
  clusters.pairPlaces.forEach((at, k) => {
    if (at === undefined) return;
    wanted.set(placeKey(at.a), { place: at.a, id: pairs.sample[k].a });
    wanted.set(placeKey(at.b), { place: at.b, id: pairs.sample[k].b });
  });
  for (const g of groups.sample) {
    wanted.set(placeKey(g.placeA), { place: g.placeA, id: g.a });
    wanted.set(placeKey(g.placeB), { place: g.placeB, id: g.b });
  }
  for (const l of clusters.largest) wanted.set(placeKey(l.representative), { place: l.representative, id: l.representativeId });
  const read = await readTexts(inputs, [...wanted.values()], { idAttr, tokens: Math.max(REPORT_LIMITS.compared, SNIPPET_TOKENS), maxDocBytes: opts.maxDocBytes });
  for (const note of read.warnings) opts.warn(`${REPORT_FILE}: document texts not shown: ${note}`);
  let calibration: CalibrationTableRow[] | undefined;
  let calibrationNote: string | undefined;
  // Only the run's own calibration: a calibration.tsv its manifest does not record is another run's.
  if (manifest.calibration !== undefined) {
    try {
      calibration = await readCalibration(join(outdir, CALIBRATION_FILE));
    } catch (err) {
      if (!(err instanceof VertdupError)) throw err;
      calibrationNote = err.message;
      opts.warn(`${REPORT_FILE}: calibration not shown: ${err.message}`);
    }
  }
  const data = {
    manifest,
    seed: opts.seed,
    pairs,
    groups,
    clusters,
    texts: read.texts,
    missing: read.missing,
    ...(calibration === undefined ? {} : { calibration }),
    ...(calibrationNote === undefined ? {} : { calibrationNote }),
  };
  await writeAtomic(join(outdir, REPORT_FILE), reportHtml(data, REPORT_LIMITS.whole));
}

/** Documents to read from one list of inputs, and what to call that list in a note. */
interface TextSource {
  label: string;
  inputs: readonly string[];
  /** 0-based ordinals in `inputs`, with the place each is shown at and its expected id. */
  docs: { ordinal: number; key: string; id: string }[];
  /** Why the texts cannot be read, known before reading. */
  note?: string;
}

/**
 * The beginnings of the documents at `places`: those of the run's inputs (source "") from
 * `inputs`, those of an index from the inputs of the index batch holding them. A list of
 * inputs that cannot be read, or that holds another document at a place than the run's
 * outputs name, gives its documents a note instead (`missing`; `warnings`, once per list,
 * when it is not merely standard input).
 */
async function readTexts(inputs: readonly string[], places: readonly { place: DocPlace; id: string }[], opts: DocTextOptions): Promise<{ texts: Map<string, DocText>; missing: Map<string, string>; warnings: string[] }> {
  const texts = new Map<string, DocText>();
  const missing = new Map<string, string>();
  const warnings: string[] = [];
  for (const source of await textSources(inputs, places)) {
    let note = source.note;
    if (note !== undefined) warnings.push(note);
    else if (source.inputs.includes("-")) note = `${source.label} was read from standard input and cannot be read again`;
    else {
      try {
        const read = await readDocTexts(source.inputs, source.docs.map((d) => d.ordinal), opts);
        if (source.docs.some((d) => read.get(d.ordinal) !== undefined && read.get(d.ordinal)?.id !== d.id)) note = `${source.label} is not the one of the run (a document's id differs)`;
        else for (const d of source.docs) if (read.has(d.ordinal)) texts.set(d.key, read.get(d.ordinal) as DocText);
      } catch (err) {
        if (!(err instanceof VertdupError)) throw err;
        note = `${source.label}: ${err.message}`;
      }
      if (note !== undefined) warnings.push(note);
    }
    if (note !== undefined) for (const d of source.docs) missing.set(d.key, note);
  }
  return { texts, missing, warnings };
}

/** The places grouped by the inputs holding them: the run's own, then each index's batches (found in its index.json). */
async function textSources(inputs: readonly string[], places: readonly { place: DocPlace; id: string }[]): Promise<TextSource[]> {
  const bySource = new Map<string, { place: DocPlace; id: string }[]>();
  for (const p of places) bySource.set(p.place.source, [...(bySource.get(p.place.source) ?? []), p]);
  const sources: TextSource[] = [];
  for (const [dir, docs] of bySource) {
    const shown = docs.map((d) => ({ ordinal: d.place.ordinal, key: placeKey(d.place), id: d.id }));
    if (dir === "") {
      sources.push({ label: "the corpus", inputs, docs: shown });
      continue;
    }
    let index: IndexManifest;
    try {
      index = await readIndex(dir);
    } catch (err) {
      if (!(err instanceof VertdupError)) throw err;
      sources.push({ label: dir, inputs: [], docs: shown, note: err.message });
      continue;
    }
    for (const batch of index.batches) {
      const inBatch = shown.filter((d) => d.ordinal >= batch.firstOrdinal && d.ordinal < batch.firstOrdinal + batch.documents);
      if (inBatch.length === 0) continue;
      // The absolute paths recorded with the digests: the batch's run may have had another working directory.
      const paths = batch.inputs.map((input, k) => batch.digests?.[k]?.path ?? input);
      const label = `batch ${batch.batch} of ${dir}`;
      const note = batchInputsNote(label, paths, batch.digests ?? []);
      sources.push({ label, inputs: paths, docs: inBatch.map((d) => ({ ...d, ordinal: d.ordinal - batch.firstOrdinal })), ...(note === undefined ? {} : { note }) });
    }
  }
  return sources;
}

/** Why a batch's inputs cannot give its documents back, told without reading them: one is gone, or has another size than recorded. */
function batchInputsNote(label: string, paths: readonly string[], digests: readonly (InputDigest | null)[]): string | undefined {
  for (const [k, path] of paths.entries()) {
    if (path === "-") continue;
    if (!existsSync(path)) return `${label}: ${path} is gone (moved or removed since the batch was added)`;
    const bytes = digests[k]?.bytes;
    const now = statSync(path).size;
    if (bytes !== undefined && now !== bytes) return `${label}: ${path} changed since the batch was added (${now} bytes, ${bytes} then)`;
  }
  return undefined;
}
