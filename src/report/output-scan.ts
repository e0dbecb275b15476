import { createInterface } from "node:readline";
import { describeStreamError, openInput } from "../corpus/open-input.js";
import { escapeField, unescapeField } from "../output/tsv-field.js";
import { Sfc32 } from "../sketch/random-vectors.js";
import { VertdupError } from "../util/errors.js";
import { growableU32 } from "../util/typed-arrays.js";

/**
 * What the report reads from a run's outputs, in streaming passes over pairs.tsv and
 * clusters.tsv: histograms, a seeded sample of pairs and the largest clusters. Memory is a
 * typed array of cluster sizes and bounded samples, whatever the number of pairs.
 */

/** Bins of the similarity histograms: [k/100, (k+1)/100), the last one closed at 1. */
export const SIMILARITY_BINS = 100;

/** Stream id separating the report's sample from other generators of the same seed. */
const SAMPLE_STREAM = 0x7265_706f_7274;

/** A line of pairs.tsv drawn into the report's sample. */
export interface SampledPair {
  /** 1-based line number among the pairs (the header not counted). */
  line: number;
  a: string;
  b: string;
  similarity: number;
  /** The exact cosine, when pairs.tsv has a `cosine` column. */
  cosine?: number;
}

export interface PairScan {
  pairs: number;
  similarity: Float64Array;
  /** Present when pairs.tsv has a `cosine` column. */
  cosine?: Float64Array;
  /** In file order. */
  sample: SampledPair[];
}

const bin = (s: number) => Math.min(SIMILARITY_BINS - 1, Math.max(0, Math.floor(s * SIMILARITY_BINS)));

/**
 * Calls `each` with every line and its 1-based number until it returns false (a callback: an
 * async generator per line costs several times the reading).
 */
async function forEachLine(path: string, each: (text: string, line: number) => boolean | void): Promise<void> {
  let line = 0;
  try {
    for await (const text of createInterface({ input: openInput(path), crlfDelay: Infinity })) if (each(text, ++line) === false) break;
  } catch (err) {
    if (err instanceof VertdupError) throw err;
    throw describeStreamError(path, err);
  }
}

function numberField(path: string, line: number, name: string, field: string | undefined): number {
  const value = Number(field);
  if (field === undefined || field === "" || !(value >= 0 && value <= 1)) throw new VertdupError(`${path}:${line}: ${name} is not a number in [0, 1]: ${JSON.stringify((field ?? "").slice(0, 40))}`);
  return value;
}

/** A uniform integer in [0, n) for n ≤ 2^53, from 53 random bits. */
function below(random: Sfc32, n: number): number {
  const u = ((random.nextUint32() >>> 5) * 0x400_0000 + (random.nextUint32() >>> 6)) / 2 ** 53;
  return Math.floor(u * n);
}

/**
 * One pass over pairs.tsv: the histograms of its similarity (and cosine) column and a
 * uniform sample of `size` lines by reservoir sampling from a generator seeded with `seed`,
 * so that the same file and seed give the same sample.
 */
export async function scanPairs(path: string, size: number, seed: number): Promise<PairScan> {
  const random = new Sfc32(seed, SAMPLE_STREAM);
  const similarity = new Float64Array(SIMILARITY_BINS);
  let cosine: Float64Array | undefined;
  let cosineAt = -1;
  let similarityAt = 2;
  const sample: SampledPair[] = [];
  let n = 0;
  await forEachLine(path, (text, lineNo) => {
    if (lineNo === 1) {
      const header = text.split("\t");
      similarityAt = header.indexOf("similarity");
      if (header[0] !== "doc_a" || header[1] !== "doc_b" || similarityAt < 2) throw new VertdupError(`${path}:1: expected the header doc_a<TAB>doc_b<TAB>similarity`);
      cosineAt = header.indexOf("cosine");
      if (cosineAt >= 0) cosine = new Float64Array(SIMILARITY_BINS);
      return;
    }
    if (text.length === 0) return;
    const f = text.split("\t");
    const s = numberField(path, lineNo, "similarity", f[similarityAt]);
    similarity[bin(s)]++;
    const c = cosine === undefined ? undefined : numberField(path, lineNo, "cosine", f[cosineAt]);
    if (cosine !== undefined && c !== undefined) cosine[bin(c)]++;
    const slot = n < size ? n : below(random, n + 1);
    n++;
    if (slot < size) {
      const pair: SampledPair = { line: n, a: unescapeField(f[0]), b: unescapeField(f[1]), similarity: s, ...(c === undefined ? {} : { cosine: c }) };
      if (sample.length < size) sample.push(pair);
      else sample[slot] = pair;
    }
  });
  sample.sort((x, y) => x.line - y.line);
  return { pairs: n, similarity, ...(cosine === undefined ? {} : { cosine }), sample };
}

/** A cluster of the report's list of the largest. */
export interface LargeCluster {
  cluster: number;
  size: number;
  /** 0-based corpus ordinal and id of the representative. */
  representative: number;
  representativeId: string;
  /** The first members other than the representative, in corpus order (at most `members`). */
  members: string[];
}

export interface ClusterScan {
  /** Documents in clusters (rows of clusters.tsv). */
  documents: number;
  /** sizes[c − 1]: documents of cluster c. */
  sizes: Uint32Array;
  largest: LargeCluster[];
  /** Corpus ordinals (0-based) of the sampled pairs' documents, NaN where not found. */
  pairOrdinals: { a: number; b: number }[];
}

/** Most rows of one id remembered to place a sampled pair (ids are meant to be unique). */
const PLACES_PER_ID = 16;

/** A row of clusters.tsv; `field` is the id as written (escaped). One object, reused for every row. */
interface Row {
  field: string;
  ordinal: number;
  cluster: number;
  representative: boolean;
}

/** The rows of clusters.tsv, read by their first four fields only (this runs once per clustered document). */
function forEachClusterRow(path: string, each: (row: Row) => boolean | void): Promise<void> {
  const row: Row = { field: "", ordinal: 0, cluster: 0, representative: false };
  return forEachLine(path, (text, lineNo) => {
    if (lineNo === 1 || text.length === 0) return;
    const t0 = text.indexOf("\t");
    const t1 = text.indexOf("\t", t0 + 1);
    const t2 = text.indexOf("\t", t1 + 1);
    const ordinal = Number(text.slice(t0 + 1, t1));
    const cluster = Number(text.slice(t1 + 1, t2));
    if (t0 < 0 || t1 < 0 || t2 < 0 || !Number.isSafeInteger(ordinal) || ordinal < 1 || !Number.isSafeInteger(cluster) || cluster < 1) {
      throw new VertdupError(`${path}:${lineNo}: expected doc, ordinal, cluster, representative, dup_of, similarity`);
    }
    row.field = text.slice(0, t0);
    row.ordinal = ordinal - 1;
    row.cluster = cluster;
    row.representative = text.charCodeAt(t2 + 1) === 0x31 && text.charCodeAt(t2 + 2) === 0x09;
    return each(row);
  });
}

/** The `count` largest clusters (ties: the earlier cluster), largest first. */
function largestClusters(sizes: Uint32Array, count: number): number[] {
  const top: number[] = [];
  const before = (c: number, d: number) => sizes[c] > sizes[d] || (sizes[c] === sizes[d] && c < d);
  for (let c = 0; c < sizes.length && count > 0; c++) {
    if (top.length === count) {
      if (!before(c, top[count - 1])) continue;
      top.pop();
    }
    let at = top.length;
    top.push(c);
    for (; at > 0 && before(c, top[at - 1]); at--) top[at] = top[at - 1];
    top[at] = c;
  }
  return top;
}

/**
 * Two passes over clusters.tsv: the sizes of all clusters and the places of the sampled
 * pairs' ids, then the ids of the `largest` clusters' representatives and first `members`.
 * A sampled pair is placed at the first document of id `a` and the first later document of
 * id `b` in the same cluster (a pair's two documents always share a cluster).
 */
export async function scanClusters(path: string, pairs: readonly SampledPair[], largest: number, members: number): Promise<ClusterScan> {
  const sizes = growableU32();
  // Keyed by the ids as written, so that no row's id needs unescaping.
  const wanted = new Map<string, { ordinal: number; cluster: number }[]>();
  for (const p of pairs) for (const id of [p.a, p.b]) wanted.set(escapeField(id), []);
  let documents = 0;
  const representatives = growableU32();
  await forEachClusterRow(path, (row) => {
    documents++;
    // Clusters are numbered in corpus order of their first documents.
    if (row.cluster > documents) throw new VertdupError(`${path}:${documents + 1}: cluster ${row.cluster} before its first document`);
    if (row.cluster > sizes.length) {
      // Grown arrays are zero past their length.
      sizes.reserve(row.cluster - sizes.length);
      representatives.reserve(row.cluster - representatives.length);
      sizes.length = representatives.length = row.cluster;
    }
    sizes.values[row.cluster - 1]++;
    if (row.representative) representatives.values[row.cluster - 1] = row.ordinal;
    const places = wanted.size === 0 ? undefined : wanted.get(row.field);
    if (places !== undefined && places.length < PLACES_PER_ID) places.push({ ordinal: row.ordinal, cluster: row.cluster });
  });
  const pairOrdinals = pairs.map((p) => {
    for (const x of wanted.get(escapeField(p.a)) ?? []) {
      const y = (wanted.get(escapeField(p.b)) ?? []).find((y) => y.cluster === x.cluster && y.ordinal > x.ordinal);
      if (y !== undefined) return { a: x.ordinal, b: y.ordinal };
    }
    return { a: NaN, b: NaN };
  });
  const size = sizes.view();
  const top = largestClusters(size, largest);
  const rank = new Map(top.map((c, k) => [c + 1, k]));
  const found: LargeCluster[] = top.map((c) => ({ cluster: c + 1, size: size[c], representative: representatives.values[c], representativeId: "", members: [] }));
  // Read until every listed cluster has its representative and members.
  let incomplete = found.length;
  const complete = (l: LargeCluster) => l.representativeId !== "" && l.members.length === Math.min(members, l.size - 1);
  if (found.length > 0) {
    await forEachClusterRow(path, (row) => {
      const k = rank.get(row.cluster);
      if (k === undefined || complete(found[k])) return;
      if (row.representative) found[k].representativeId = unescapeField(row.field);
      else if (found[k].members.length < members) found[k].members.push(unescapeField(row.field));
      if (complete(found[k])) incomplete--;
      return incomplete > 0;
    });
  }
  return { documents, sizes: size, largest: found, pairOrdinals };
}
