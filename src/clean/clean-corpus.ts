import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkReadable, describeStreamError, displayName, openInput } from "../corpus/open-input.js";
import { attributeValue } from "../corpus/vertical.js";
import type { Oversize } from "../corpus/chunker.js";
import { DEFAULT_MAX_DOC_BYTES } from "../options.js";
import { CLUSTERS_FILE, readClustersTsv, type ClusterRow } from "../clusters/clusters-tsv.js";
import { InputError, VertdupError } from "../util/errors.js";
import { refuseOverwritingInputs } from "../util/output-dir.js";
import { CorpusOutput } from "./corpus-output.js";
import { actionFor, type DocAction } from "./doc-marks.js";
import { DocFilter } from "./doc-filter.js";

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
}

export interface CleanStats {
  documents: number;
  removed: number;
  marked: number;
  /** Lines longer than --max-doc-bytes (--oversize skip) and where the first is, `file:line`; absent when none. */
  longLines?: { lines: number; first: string };
}

/** The id attribute the run named documents by (its manifest), `id` by default. */
function idAttrOf(outdir: string): string {
  const path = join(outdir, "manifest.json");
  if (!existsSync(path)) return "id";
  const manifest = JSON.parse(readFileSync(path, "utf8")) as { prepare?: { idAttr?: string } };
  return manifest.prepare?.idAttr ?? "id";
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
 */
export async function cleanCorpus(inputs: readonly string[], opts: CleanOptions): Promise<CleanStats> {
  for (const input of inputs) await checkReadable(input);
  await refuseOverwritingInputs([opts.output], inputs);
  const rows = await readClustersTsv(join(opts.from, CLUSTERS_FILE));
  const idAttr = idAttrOf(opts.from);
  const stats: CleanStats = { documents: 0, removed: 0, marked: 0 };
  const output = new CorpusOutput(opts.output);
  try {
    let ordinal = 0;
    for (const input of inputs) {
      const file = displayName(input);
      const decide = (doc: number, docLine: Buffer | null, line: number): DocAction => {
        const row: ClusterRow | undefined = rows.row(doc);
        if (row !== undefined && docLine === null) {
          // `run --oversize skip` with the same limit leaves such a document out of every cluster.
          throw new InputError(file, line, `document ${doc + 1} is in ${CLUSTERS_FILE} but its <doc> line is longer than --max-doc-bytes: cannot check or mark it`);
        }
        if (row !== undefined && docLine !== null) {
          const id = attributeValue(docLine.toString("utf8"), idAttr) ?? String(doc + 1);
          if (id !== row.id) {
            throw new InputError(file, line, `document ${doc + 1} is "${id}" but ${CLUSTERS_FILE} names "${row.id}" (not the corpus of ${opts.from}?)`);
          }
        }
        const action = actionFor(row, opts.mark);
        if (action.kind === "remove") stats.removed++;
        if (action.kind === "mark" && row !== undefined) stats.marked++;
        return action;
      };
      const filter = new DocFilter(file, ordinal, decide, opts.maxDocBytes ?? DEFAULT_MAX_DOC_BYTES, opts.oversize);
      const out: Buffer[] = [];
      for await (const piece of pieces(input)) {
        filter.push(piece, out);
        for (const b of out) await output.write(b);
        out.length = 0;
      }
      filter.end(out);
      for (const b of out) await output.write(b);
      ordinal = filter.nextOrdinal;
      if (filter.longLines > 0) {
        stats.longLines ??= { lines: 0, first: `${file}:${filter.firstLongLine}` };
        stats.longLines.lines += filter.longLines;
      }
    }
    stats.documents = ordinal;
    const last = rows.rows === 0 ? -1 : rows.ordinals[rows.rows - 1];
    if (last >= ordinal) {
      throw new VertdupError(`${inputs.join(", ")}: ${ordinal} documents, but ${CLUSTERS_FILE} names document ${last + 1} (not the corpus of ${opts.from}?)`);
    }
    await output.commit();
    return stats;
  } catch (err) {
    await output.abort();
    throw err;
  }
}
