import { createInterface } from "node:readline";
import { describeStreamError, openInput } from "../corpus/open-input.js";
import { escapeField, unescapeField } from "../output/tsv-field.js";
import { Sfc32 } from "../sketch/random-vectors.js";
import { VertdupError } from "../core/errors.js";
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
  /** With --against (`index_a`, `index_b` columns): the index each document comes from, "" for a new one. */
  sourceA?: string;
  sourceB?: string;
  similarity: number;
  /** The exact cosine, when pairs.tsv has a `cosine` column. */
  cosine?: number;
}

/**
 * Where a document is: its source — "" for the run's inputs, else the `--against` index it
 * comes from, as given — and its 0-based ordinal there (the corpus ordinal without --against).
 */
export interface DocPlace {
  source: string;
  ordinal: number;
}

/** A place as a map key. */
export const placeKey = (p: DocPlace): string => `${p.source}\t${p.ordinal}`;

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
  let sourced = false;
  const sample: SampledPair[] = [];
  let n = 0;
  await forEachLine(path, (text, lineNo) => {
    if (lineNo === 1) {
      const header = text.split("\t");
      similarityAt = header.indexOf("similarity");
      // With --against each id is followed by its index.
      sourced = header[1] === "index_a";
      const ids = sourced ? header[2] === "doc_b" && header[3] === "index_b" : header[1] === "doc_b";
      if (header[0] !== "doc_a" || !ids || similarityAt < (sourced ? 4 : 2)) {
        throw new VertdupError(`${path}:1: expected the header doc_a<TAB>doc_b<TAB>similarity (with --against: doc_a<TAB>index_a<TAB>doc_b<TAB>index_b<TAB>similarity)`);
      }
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
      const ids = sourced ? { a: unescapeField(f[0]), sourceA: unescapeField(f[1]), b: unescapeField(f[2]), sourceB: unescapeField(f[3]) } : { a: unescapeField(f[0]), b: unescapeField(f[1]) };
      const pair: SampledPair = { line: n, ...ids, similarity: s, ...(c === undefined ? {} : { cosine: c }) };
      if (sample.length < size) sample.push(pair);
      else sample[slot] = pair;
    }
  });
  sample.sort((x, y) => x.line - y.line);
  return { pairs: n, similarity, ...(cosine === undefined ? {} : { cosine }), sample };
}

/** A group of groups.tsv drawn into the report's sample: its first two documents (identical under the method). */
export interface SampledGroup {
  group: number;
  size: number;
  a: string;
  b: string;
  placeA: DocPlace;
  placeB: DocPlace;
}

/** Stream id of the groups' sample, apart from the pairs'. */
const GROUP_STREAM = 0x6772_6f75_7073;

/**
 * One pass over groups.tsv (a group's rows together, its leader first): the number of groups
 * and a uniform sample of `size` of them by reservoir sampling seeded with `seed`, each with
 * its first two documents' ids and places (with --against an `index` column after `doc`).
 */
export async function scanGroups(path: string, size: number, seed: number): Promise<{ groups: number; sample: SampledGroup[] }> {
  const random = new Sfc32(seed, GROUP_STREAM);
  const sample: SampledGroup[] = [];
  let sourced = false;
  let groups = 0;
  let last = "";
  // The sampled group being read, while its rows come.
  let taking: SampledGroup | null = null;
  await forEachLine(path, (text, lineNo) => {
    if (lineNo === 1) {
      sourced = text === "group\tdoc\tindex\tordinal";
      if (!sourced && text !== "group\tdoc\tordinal") throw new VertdupError(`${path}:1: expected the header group<TAB>doc<TAB>ordinal (with --against: group<TAB>doc<TAB>index<TAB>ordinal)`);
      return;
    }
    if (text.length === 0) return;
    const f = text.split("\t");
    const ordinal = Number(f[sourced ? 3 : 2]);
    if (f.length !== (sourced ? 4 : 3) || !Number.isSafeInteger(ordinal) || ordinal < 1) throw new VertdupError(`${path}:${lineNo}: expected ${sourced ? "group, doc, index, ordinal" : "group, doc, ordinal"}`);
    const place = { source: sourced ? unescapeField(f[2]) : "", ordinal: ordinal - 1 };
    if (f[0] !== last) {
      last = f[0];
      const slot = groups < size ? groups : below(random, groups + 1);
      groups++;
      taking = null;
      if (slot < size) {
        taking = { group: Number(f[0]), size: 1, a: unescapeField(f[1]), b: "", placeA: place, placeB: place };
        if (sample.length < size) sample.push(taking);
        else sample[slot] = taking;
      }
      return;
    }
    if (taking === null) return;
    if (taking.size === 1) {
      taking.b = unescapeField(f[1]);
      taking.placeB = place;
    }
    taking.size++;
  });
  sample.sort((x, y) => x.group - y.group);
  return { groups, sample };
}

/** A cluster of the report's list of the largest. */
export interface LargeCluster {
  cluster: number;
  size: number;
  /** Place and id of the representative. */
  representative: DocPlace;
  representativeId: string;
  /** The first members other than the representative, in corpus order (at most `members`). */
  members: string[];
}

export interface ClusterScan {
  /** Documents in clusters (rows of clusters.tsv). */
  documents: number;
  /** Sizes of the clusters written, in the order of their numbers. */
  sizes: Uint32Array;
  /** clusters.tsv has an `index` column (--against): only clusters with a new document are written, numbered with gaps. */
  sourced: boolean;
  largest: LargeCluster[];
  /** Places of the sampled pairs' documents, undefined where not found. */
  pairPlaces: ({ a: DocPlace; b: DocPlace } | undefined)[];
}

/** Most rows of one id remembered to place a sampled pair (ids are meant to be unique). */
const PLACES_PER_ID = 16;

/**
 * A row of clusters.tsv, fields as written (escaped): `key` is the id, with --against the id
 * and its index (the sampled pairs' key). One object, reused for every row.
 */
interface Row {
  key: string;
  id: string;
  source: string;
  ordinal: number;
  cluster: number;
  representative: boolean;
}

const CLUSTERS_FIELDS = "doc, ordinal, cluster, representative, dup_of, similarity (with --against: doc, index, ordinal, …)";

/** The rows of clusters.tsv, read by their first fields only (this runs once per clustered document); `sourced` when it has an `index` column. */
function forEachClusterRow(path: string, each: (row: Row, line: number) => boolean | void, sourced: (yes: boolean) => void = () => undefined): Promise<void> {
  const row: Row = { key: "", id: "", source: "", ordinal: 0, cluster: 0, representative: false };
  let indexColumn = false;
  return forEachLine(path, (text, lineNo) => {
    if (lineNo === 1) {
      indexColumn = text.startsWith("doc\tindex\t");
      sourced(indexColumn);
      return;
    }
    if (text.length === 0) return;
    const t = text.indexOf("\t");
    const t0 = indexColumn ? text.indexOf("\t", t + 1) : t;
    const t1 = text.indexOf("\t", t0 + 1);
    const t2 = text.indexOf("\t", t1 + 1);
    const ordinal = Number(text.slice(t0 + 1, t1));
    const cluster = Number(text.slice(t1 + 1, t2));
    if (t < 0 || t0 < 0 || t1 < 0 || t2 < 0 || !Number.isSafeInteger(ordinal) || ordinal < 1 || !Number.isSafeInteger(cluster) || cluster < 1) {
      throw new VertdupError(`${path}:${lineNo}: expected ${CLUSTERS_FIELDS}`);
    }
    row.key = text.slice(0, t0);
    row.id = indexColumn ? text.slice(0, t) : row.key;
    row.source = indexColumn ? text.slice(t + 1, t0) : "";
    row.ordinal = ordinal - 1;
    row.cluster = cluster;
    row.representative = text.charCodeAt(t2 + 1) === 0x31 && text.charCodeAt(t2 + 2) === 0x09;
    return each(row, lineNo);
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
 * The sizes of the clusters written and the number of each (`numberOf(i)` of sizes[i]): all
 * clusters, or with gaps (`sourced`: --against writes only the clusters with a new document).
 */
function writtenClusters(all: Uint32Array, sourced: boolean): { sizes: Uint32Array; numberOf: (i: number) => number } {
  if (!sourced) return { sizes: all, numberOf: (i) => i + 1 };
  let n = 0;
  for (const size of all) if (size > 0) n++;
  const sizes = new Uint32Array(n);
  const numbers = new Uint32Array(n);
  for (let c = 0, i = 0; c < all.length; c++) {
    if (all[c] === 0) continue;
    sizes[i] = all[c];
    numbers[i++] = c + 1;
  }
  return { sizes, numberOf: (i) => numbers[i] };
}

/** The key of a sampled pair's document in clusters.tsv (Row.key): its escaped id, and index if any. */
const pairKey = (id: string, source: string | undefined) => (source === undefined ? escapeField(id) : `${escapeField(id)}\t${escapeField(source)}`);

/**
 * Two passes over clusters.tsv: the sizes of all clusters and the places of the sampled
 * pairs' documents, then the ids and places of the `largest` clusters' representatives and
 * their first `members`. A sampled pair is placed at the first row of document `a` and the
 * first later row of document `b` in the same cluster (a pair's two documents always share a
 * cluster; rows are in corpus order).
 */
export async function scanClusters(path: string, pairs: readonly SampledPair[], largest: number, members: number): Promise<ClusterScan> {
  const counted = growableU32();
  // Keyed by the ids as written, so that no row's id needs unescaping.
  const wanted = new Map<string, { place: DocPlace; cluster: number; line: number }[]>();
  for (const p of pairs) for (const key of [pairKey(p.a, p.sourceA), pairKey(p.b, p.sourceB)]) wanted.set(key, []);
  let documents = 0;
  let sourced = false;
  await forEachClusterRow(
    path,
    (row, line) => {
      documents++;
      // Clusters are numbered in corpus order of their first documents (with --against, over all clusters of the concatenation: with gaps).
      if (!sourced && row.cluster > documents) throw new VertdupError(`${path}:${documents + 1}: cluster ${row.cluster} before its first document`);
      if (row.cluster > counted.length) {
        // Grown arrays are zero past their length.
        counted.reserve(row.cluster - counted.length);
        counted.length = row.cluster;
      }
      counted.values[row.cluster - 1]++;
      const places = wanted.size === 0 ? undefined : wanted.get(row.key);
      if (places !== undefined && places.length < PLACES_PER_ID) places.push({ place: { source: unescapeField(row.source), ordinal: row.ordinal }, cluster: row.cluster, line });
    },
    (yes) => (sourced = yes),
  );
  const pairPlaces = pairs.map((p) => {
    for (const x of wanted.get(pairKey(p.a, p.sourceA)) ?? []) {
      const y = (wanted.get(pairKey(p.b, p.sourceB)) ?? []).find((y) => y.cluster === x.cluster && y.line > x.line);
      if (y !== undefined) return { a: x.place, b: y.place };
    }
    return undefined;
  });
  // The clusters written, by number: with --against only some of them.
  const { sizes, numberOf } = writtenClusters(counted.view(), sourced);
  const top = largestClusters(sizes, largest);
  const rank = new Map(top.map((c, k) => [numberOf(c), k]));
  const found: LargeCluster[] = top.map((c) => ({ cluster: numberOf(c), size: sizes[c], representative: { source: "", ordinal: NaN }, representativeId: "", members: [] }));
  // Read until every listed cluster has its representative and members.
  let incomplete = found.length;
  const complete = (l: LargeCluster) => l.representativeId !== "" && l.members.length === Math.min(members, l.size - 1);
  if (found.length > 0) {
    await forEachClusterRow(path, (row) => {
      const k = rank.get(row.cluster);
      if (k === undefined || complete(found[k])) return;
      if (row.representative) {
        found[k].representativeId = unescapeField(row.id);
        found[k].representative = { source: unescapeField(row.source), ordinal: row.ordinal };
      } else if (found[k].members.length < members) found[k].members.push(unescapeField(row.id));
      if (complete(found[k])) incomplete--;
      return incomplete > 0;
    });
  }
  return { documents, sizes, sourced, largest: found, pairPlaces };
}
