import { type Oversize, DEFAULT_MAX_DOC_BYTES } from "../core/options.js";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { checkReadable, describeStreamError, displayName, openInput } from "../corpus/open-input.js";
import { attributeValue } from "../corpus/vertical.js";

import { CLUSTERS_FILE, readClustersTsv, type ClusterRow, type ClusterTable } from "../output/clusters-tsv.js";
import { stampInputs } from "../workdir/run-config.js";
import { takeWorkdir } from "../workdir/use.js";
import { shardName } from "../workdir/layout.js";
import { clearStep, startStep, stepFolder, stepMarker, type StepDir } from "../workdir/step-dir.js";
import { markerStats, runWholeTask, TaskRunner } from "../executor/tasks.js";
import { InputError, VertdupError } from "../core/errors.js";
import { checkOutputs } from "../util/output-dir.js";
import { fillOutput, type OutputFile } from "../output/output-file.js";
import { checkVouched, type VouchedFile } from "../output/output-set.js";
import { actionFor, dupMeasure, type DocAction, type DupMeasure } from "./doc-marks.js";
import { DocFilter } from "./doc-filter.js";
import { OUTPUT_ADVICE, readJsonFileSync } from "../util/json-file.js";

export interface CleanOptions {
  /** Output directory of `vertdup run` (clusters.tsv, manifest.json). */
  from: string;
  output: string;
  /** Keep every document and add dup_* attributes instead of removing duplicates. */
  mark: boolean;
  /** A longer line stops the cleaning (--max-doc-bytes)… */
  maxDocBytes?: number;
  /** …or is copied as it is read (--oversize skip). */
  oversize?: Oversize;
  /**
   * A work directory: each input is cleaned into a part kept there, then the parts are copied
   * to `output`, so that `resume` continues an interrupted clean. Absent: straight to `output`.
   */
  workdir?: string;
  resume?: boolean;
}

export interface CleanStats {
  documents: number;
  removed: number;
  marked: number;
  /** Lines longer than --max-doc-bytes (--oversize skip) and where the first is, `file:line`; absent when none. */
  longLines?: { lines: number; first: string };
}

/** What cleaning one input made: the next input's first ordinal, its counts (a task's marker). */
interface CleanPart {
  nextOrdinal: number;
  removed: number;
  marked: number;
  longLines?: { lines: number; first: string };
}

/**
 * From the run's manifest: the id attribute it named documents by (`id` by default), the
 * measure of its clusters.tsv similarities (unknown without a manifest) and the files it vouches for.
 */
function runFacts(outdir: string): { idAttr: string; measure?: DupMeasure; files?: Record<string, VouchedFile> } {
  const path = join(outdir, "manifest.json");
  if (!existsSync(path)) return { idAttr: "id" };
  const manifest = readJsonFileSync<{ method?: string; prepare?: { idAttr?: string }; pleb?: { cosineThreshold?: number }; files?: Record<string, VouchedFile> }>(path, `${OUTPUT_ADVICE}, then clean`);
  const measure = dupMeasure(manifest.method, manifest.pleb?.cosineThreshold !== undefined);
  return { idAttr: manifest.prepare?.idAttr ?? "id", ...(measure === undefined ? {} : { measure }), ...(manifest.files === undefined ? {} : { files: manifest.files }) };
}

/**
 * The pieces of an input. Only a failure of the reading itself is the input's (truncated,
 * corrupt, unreadable); one while handling a piece propagates as it is.
 */
async function* pieces(input: string): AsyncGenerator<Buffer> {
  try {
    for await (const piece of openInput(input) as AsyncIterable<Buffer>) yield piece;
  } catch (err) {
    if (err instanceof VertdupError) throw err;
    throw describeStreamError(input, err);
  }
}

/**
 * `vertdup clean`: streams the corpus again and writes it with the non-representatives of
 * clusters.tsv removed, or (mark) with every document kept and its cluster in attributes.
 * Documents are matched by corpus ordinal and checked by id, so a different corpus fails.
 * The inputs are the tasks of the `clean` step (executor/tasks.ts), one after the other (an
 * input's first ordinal is where the previous one ended); with a work directory each writes
 * a part there, and an `output` task copies the parts to the output, after which the parts
 * are removed.
 */
export async function cleanCorpus(inputs: readonly string[], opts: CleanOptions): Promise<CleanStats> {
  if (opts.resume === true && opts.workdir === undefined) throw new VertdupError("--resume needs the work directory of the interrupted clean (-w)");
  if (opts.workdir !== undefined && opts.output === "-") {
    throw new VertdupError("-w keeps a clean to be resumed, and what went to standard output cannot be taken back: give -o a file");
  }
  if (opts.resume === true && inputs.includes("-")) throw new VertdupError("--resume cannot check standard input against the earlier clean: give the corpus as files");
  for (const input of inputs) await checkReadable(input);
  const clusters = join(opts.from, CLUSTERS_FILE);
  // The files read through --from are inputs too.
  await checkOutputs([opts.output], [...inputs, clusters, join(opts.from, "manifest.json")]);
  const facts = runFacts(opts.from);
  const rows = await readClustersTsv(clusters);
  // Checked after the read: the clusters read are the run's whose manifest names them, not a half-written later run's.
  await checkVouched(opts.from, CLUSTERS_FILE, facts.files);
  const cleanOne = (i: number, first: number, output: OutputFile) => cleanInput(inputs[i], first, opts, rows, facts, output);
  if (opts.workdir === undefined) {
    return fillOutput(opts.output, (output) => cleanInputs(inputs, opts.from, rows, null, (i, first) => cleanOne(i, first, output)), CORPUS_ZSTD_LEVEL);
  }
  const workdir = opts.workdir;
  const lock = await takeWorkdir(workdir, { create: true });
  try {
    const step: StepDir = { workdir, name: "clean" };
    const config = { inputs: await stampInputs([...inputs, clusters]), "--from": resolve(opts.from), "--output": resolve(opts.output), "--mark": opts.mark, "--max-doc-bytes": opts.maxDocBytes ?? null, "--oversize": opts.oversize ?? null };
    await startStep(step, config, opts.resume === true);
    const part = (i: number) => join(stepFolder(step), `${shardName(i)}.vert.zst`);
    const stats = await cleanInputs(inputs, opts.from, rows, step, (i, first) => fillOutput(part(i), (output) => cleanOne(i, first, output), PART_ZSTD_LEVEL));
    await runWholeTask(workdir, stepMarker(step.name, "output"), () =>
      fillOutput(
        opts.output,
        async (output) => {
          for (let i = 0; i < inputs.length; i++) for await (const piece of pieces(part(i))) await output.write(piece);
          return {};
        },
        CORPUS_ZSTD_LEVEL,
      ),
    );
    // The parts are as large as the output: gone once it is in place.
    await clearStep(step);
    return stats;
  } finally {
    await lock.release();
  }
}

/** A cleaned corpus is kept: zstd level 9. */
const CORPUS_ZSTD_LEVEL = 9;
/** Parts are read back once: fast compression. */
const PART_ZSTD_LEVEL = 3;

/**
 * The `clean` step: each input a task, in order (`clean(i, first)` cleans input i, whose
 * first document is ordinal `first`, into its part or the shared output). Without a step,
 * nothing is marked.
 */
async function cleanInputs(
  inputs: readonly string[],
  from: string,
  rows: ClusterTable,
  step: StepDir | null,
  clean: (input: number, first: number) => Promise<CleanPart>,
): Promise<CleanStats> {
  const runner = new TaskRunner<CleanPart>(step?.workdir ?? null);
  const stats: CleanStats = { documents: 0, removed: 0, marked: 0 };
  for (let i = 0; i < inputs.length; i++) {
    const first = stats.documents;
    const marker = stepMarker("clean", i);
    const { result } = await runner.add({
      marker,
      start: async () => ({ result: clean(i, first) }),
      load: markerStats<CleanPart>(step?.workdir ?? "", marker),
      stats: (part) => part,
    });
    const part = await result;
    stats.documents = part.nextOrdinal;
    stats.removed += part.removed;
    stats.marked += part.marked;
    if (part.longLines !== undefined) {
      stats.longLines ??= { lines: 0, first: part.longLines.first };
      stats.longLines.lines += part.longLines.lines;
    }
  }
  const last = rows.rows === 0 ? -1 : rows.ordinals[rows.rows - 1];
  if (last >= stats.documents) {
    throw new VertdupError(`${inputs.join(", ")}: ${stats.documents} documents, but ${CLUSTERS_FILE} names document ${last + 1} (not the corpus of ${from}?)`);
  }
  return stats;
}

/** Cleans one input, whose first document is corpus ordinal `first`, into `output`. */
async function cleanInput(input: string, first: number, opts: CleanOptions, rows: ClusterTable, { idAttr, measure }: { idAttr: string; measure?: DupMeasure }, output: OutputFile): Promise<CleanPart> {
  const file = displayName(input);
  const part: CleanPart = { nextOrdinal: first, removed: 0, marked: 0 };
  const decide = (doc: number, docLine: Buffer | null, line: number): DocAction => {
    const row: ClusterRow | undefined = rows.row(doc);
    if (row !== undefined && docLine === null) {
      // `run --oversize skip` with the same limit leaves such a document out of every cluster.
      throw new InputError(file, line, `document ${doc + 1} is in ${CLUSTERS_FILE} but its <doc> line is longer than --max-doc-bytes: cannot check or mark it`);
    }
    if (row !== undefined && docLine !== null) {
      const id = attributeValue(docLine.toString("utf8"), idAttr, { file, line }) ?? String(doc + 1);
      if (id !== row.id) {
        throw new InputError(file, line, `document ${doc + 1} is "${id}" but ${CLUSTERS_FILE} names "${row.id}" (not the corpus of ${opts.from}?)`);
      }
    }
    const action = actionFor(row, opts.mark, measure);
    if (action.kind === "remove") part.removed++;
    if (action.kind === "mark" && row !== undefined) part.marked++;
    return action;
  };
  const filter = new DocFilter(file, first, decide, opts.maxDocBytes ?? DEFAULT_MAX_DOC_BYTES, opts.oversize);
  const out: Buffer[] = [];
  for await (const piece of pieces(input)) {
    filter.push(piece, out);
    for (const b of out) await output.write(b);
    out.length = 0;
  }
  filter.end(out);
  for (const b of out) await output.write(b);
  part.nextOrdinal = filter.nextOrdinal;
  if (filter.longLines > 0) part.longLines = { lines: filter.longLines, first: `${file}:${filter.firstLongLine}` };
  return part;
}
