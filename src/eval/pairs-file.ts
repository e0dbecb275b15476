import { createInterface } from "node:readline";
import { describeStreamError, openInput } from "../corpus/open-input.js";
import { writeLineFile } from "../output/line-file.js";
import { PAIRS_HEADER, pairsLine } from "../output/pairs.js";
import type { DocIds } from "../output/doc-ids.js";
import { VertdupError } from "../util/errors.js";

/**
 * pairs.tsv files as the core pipeline writes them — a header `doc_a doc_b similarity`,
 * then one pair per line with the similarity to 4 decimals, doc_a the earlier document in
 * corpus order, lines in corpus order — plain, or gzip / zstd when the name ends in
 * `.gz` / `.zst`.
 */

/** Document pairs by corpus ordinal (a < b) with their similarities, in any order. */
export interface ScoredPairs {
  a: Uint32Array;
  b: Uint32Array;
  similarity: Float64Array;
}

/** Positions of the pairs sorted by (a, b). */
function corpusOrder(p: ScoredPairs): Uint32Array {
  const order = new Uint32Array(p.a.length);
  for (let k = 0; k < order.length; k++) order[k] = k;
  return order.sort((x, y) => p.a[x] - p.a[y] || p.b[x] - p.b[y]);
}

/** Writes the pairs (ordinals → ids) atomically, sorted by corpus order. */
export async function writePairsFile(path: string, pairs: ScoredPairs, ids: DocIds): Promise<void> {
  const order = corpusOrder(pairs);
  await writeLineFile(path, PAIRS_HEADER, order.length, (k) => {
    const p = order[k];
    return pairsLine(ids.get(pairs.a[p]), ids.get(pairs.b[p]), pairs.similarity[p]);
  });
}

/** Pairs read from a file, keyed by `pairKey` (the ids in either order give the same key). */
export interface PairTable {
  path: string;
  similarity: Map<string, number>;
}

/** An order-independent key of a pair of document ids. */
export function pairKey(x: string, y: string): string {
  return x < y ? `${x}\t${y}` : `${y}\t${x}`;
}

/**
 * Reads a pairs file. The header is optional; blank lines are skipped. A line without three
 * tab-separated fields, a similarity that is not a number in [0, 1], a document paired with
 * itself or a pair listed twice is an error naming the file and line.
 */
export async function readPairsFile(path: string): Promise<PairTable> {
  const similarity = new Map<string, number>();
  const stream = openInput(path);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      if (text.length === 0 || (line === 1 && text.startsWith("doc_a\t"))) continue;
      const f = text.split("\t");
      if (f.length < 3) throw new VertdupError(`${path}:${line}: expected doc_a<TAB>doc_b<TAB>similarity, got ${JSON.stringify(text.slice(0, 80))}`);
      const s = Number(f[2]);
      if (f[2].trim() === "" || !(s >= 0 && s <= 1)) throw new VertdupError(`${path}:${line}: similarity must be a number in [0, 1], got ${JSON.stringify(f[2])}`);
      if (f[0] === f[1]) throw new VertdupError(`${path}:${line}: document ${f[0]} is paired with itself`);
      const key = pairKey(f[0], f[1]);
      if (similarity.has(key)) throw new VertdupError(`${path}:${line}: pair ${f[0]} ${f[1]} is listed twice`);
      similarity.set(key, s);
    }
  } catch (err) {
    if (err instanceof VertdupError) throw err;
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new VertdupError(`${path}: cannot read pairs file (missing)`);
    throw describeStreamError(path, err);
  }
  return { path, similarity };
}

/**
 * Reads a sample list (one document id per line; blank lines and repeats ignored) and maps
 * it to corpus ordinals; an id the corpus does not have is an error naming its line.
 */
export async function readSampleList(path: string, ids: DocIds): Promise<Uint8Array> {
  const sampled = new Uint8Array(ids.length);
  const lines = createInterface({ input: openInput(path), crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      const id = text.trim();
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
