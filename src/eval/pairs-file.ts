import { createInterface } from "node:readline";
import { describeStreamError, openInput } from "../corpus/open-input.js";
import { DocIds } from "../output/doc-ids.js";
import { writeLineFile } from "../output/line-file.js";
import { PAIRS_HEADER, pairOrder, pairsLine } from "../output/pairs.js";
import { unescapeField } from "../output/tsv-field.js";
import { VertdupError } from "../core/errors.js";
import { concatF64, concatU32, growableF64, growableU32 } from "../util/typed-arrays.js";

/**
 * Pairs files as the core pipeline writes them — a header `doc_a doc_b similarity`, then
 * one pair per line with the similarity to 4 decimals, doc_a the earlier document in
 * corpus order, lines in corpus order, ids escaped (output/tsv-field.ts) — plain, or gzip /
 * zstd when the name ends in `.gz` / `.zst`.
 */

/** Document pairs by corpus ordinal (a < b) with their similarities, in any order. */
export interface ScoredPairs {
  a: Uint32Array;
  b: Uint32Array;
  similarity: Float64Array;
}

/** The pairs of `pairs` whose two documents share a partition (`part[d]`: `--partition-attr`), in their order. */
export function withinPartitions(pairs: ScoredPairs, part: Uint32Array): ScoredPairs {
  const keep = (_: number, k: number) => part[pairs.a[k]] === part[pairs.b[k]];
  return { a: pairs.a.filter(keep), b: pairs.b.filter(keep), similarity: pairs.similarity.filter(keep) };
}

/** The pairs of several tasks, one after another in task order. */
export function joinScoredPairs(parts: readonly ScoredPairs[]): ScoredPairs {
  return { a: concatU32(parts.map((p) => p.a)), b: concatU32(parts.map((p) => p.b)), similarity: concatF64(parts.map((p) => p.similarity)) };
}

/** Writes the pairs (ordinals → ids) atomically, sorted by corpus order. */
export async function writePairsFile(path: string, pairs: ScoredPairs, ids: DocIds): Promise<void> {
  const order = pairOrder(pairs.a.length, (k) => pairs.a[k], (k) => pairs.b[k], ids.length);
  await writeLineFile(path, PAIRS_HEADER, order.length, (k) => {
    const p = order[k];
    return pairsLine(ids.get(pairs.a[p]), ids.get(pairs.b[p]), pairs.similarity[p]);
  });
}

/**
 * The pairs of a file: ordinals into `ids` (the table the ids were interned in, shared by
 * the files of one comparison), each unordered pair once, in file order.
 */
export interface PairTable extends ScoredPairs {
  path: string;
  ids: DocIds;
}

/**
 * Reads a pairs file, interning its ids into `ids`. The header is optional; blank lines are
 * skipped. A line without three tab-separated fields, a similarity that is not a number in
 * [0, 1], a document paired with itself or a pair listed twice is an error naming the file
 * and line.
 */
export async function readPairsFile(path: string, ids: DocIds = DocIds.empty()): Promise<PairTable> {
  const as = growableU32();
  const bs = growableU32();
  const sims = growableF64();
  const lines = growableU32();
  let line = 0;
  try {
    for await (const text of createInterface({ input: openInput(path), crlfDelay: Infinity })) {
      line++;
      if (text.length === 0 || (line === 1 && text.startsWith("doc_a\t"))) continue;
      const f = text.split("\t");
      if (f.length < 3) throw new VertdupError(`${path}:${line}: expected doc_a<TAB>doc_b<TAB>similarity, got ${JSON.stringify(text.slice(0, 80))}`);
      const s = Number(f[2]);
      if (f[2].trim() === "" || !(s >= 0 && s <= 1)) throw new VertdupError(`${path}:${line}: similarity must be a number in [0, 1], got ${JSON.stringify(f[2])}`);
      const x = unescapeField(f[0]);
      const y = unescapeField(f[1]);
      if (x === y) throw new VertdupError(`${path}:${line}: document ${f[0]} is paired with itself`);
      as.append([ids.intern(x)]);
      bs.append([ids.intern(y)]);
      sims.append([s]);
      lines.append([line]);
    }
  } catch (err) {
    if (err instanceof VertdupError) throw err;
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new VertdupError(`${path}: cannot read pairs file (missing)`);
    throw describeStreamError(path, err);
  }
  const table: PairTable = { path, ids, a: as.view(), b: bs.view(), similarity: sims.view() };
  rejectRepeats(table, lines.view());
  return table;
}

/** A pair listed twice (in either order) is an error naming the later line. */
function rejectRepeats(t: PairTable, lines: Uint32Array): void {
  const lo = (k: number) => Math.min(t.a[k], t.b[k]);
  const hi = (k: number) => Math.max(t.a[k], t.b[k]);
  const order = pairOrder(t.a.length, lo, hi, t.ids.length);
  let repeat = -1;
  for (let i = 1; i < order.length; i++) {
    const [p, q] = [order[i - 1], order[i]];
    if (lo(p) !== lo(q) || hi(p) !== hi(q)) continue;
    const later = lines[p] > lines[q] ? p : q;
    if (repeat < 0 || lines[later] < lines[repeat]) repeat = later;
  }
  if (repeat >= 0) throw new VertdupError(`${t.path}:${lines[repeat]}: pair ${t.ids.get(t.a[repeat])} ${t.ids.get(t.b[repeat])} is listed twice`);
}

/**
 * Reads a sample list (one document id per line, escaped as in the TSV files; blank lines
 * and repeats ignored) and maps it to corpus ordinals; an id the corpus does not have is an
 * error naming its line.
 */
export async function readSampleList(path: string, ids: DocIds): Promise<Uint8Array> {
  const sampled = new Uint8Array(ids.length);
  const lines = createInterface({ input: openInput(path), crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      const id = unescapeField(text.trim());
      if (id.length === 0) continue;
      const k = ids.ordinalOf(id);
      if (k === undefined) throw new VertdupError(`${path}:${line}: document ${JSON.stringify(id)} is not in the corpus`);
      sampled[k] = 1;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new VertdupError(`${path}: cannot read sample list (missing)`);
    if (err instanceof VertdupError) throw err;
    throw describeStreamError(path, err);
  }
  return sampled;
}
