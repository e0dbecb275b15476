/**
 * How the clusters a run found compare with the true ones (not a test):
 *
 *   node dist/scripts/quality/clusters-check.js OUT/clusters.tsv CORPUS.truth.tsv
 *
 * clusters.tsv is a run's (`doc ordinal cluster representative dup_of similarity`, ids
 * escaped with \t \n \r \\); the truth is the web shape's of scripts/generate-corpus.ts
 * (`doc ordinal cluster kind`, one row per clustered document, ids as in the corpus). Both are read by corpus
 * ordinal into typed arrays; a document listed in neither is a singleton on both sides.
 *
 * Pairwise measures by counting: two documents are a true pair when they share a true
 * cluster, a found pair when they share a found one. With n_t, n_f the cluster sizes and
 * n_tf the documents in both t and f (the contingency table, from one sort of the documents by
 * (t, f)): true pairs Σ C(n_t, 2), found pairs Σ C(n_f, 2), pairs in both Σ C(n_tf, 2) —
 * precision, recall and F without expanding a pair. A document is *split off* when it is not
 * in the found cluster that holds most of its true cluster (an unclustered document is a found
 * cluster of one), *wrongly merged* when it is not in the true cluster that holds most of its
 * found cluster (ties: the lower cluster number; all pluralities of one: the first document
 * in corpus order stays). Reported overall and per true-cluster-size bucket, as one JSON line
 * and a summary. Exit 1 on unreadable or malformed input.
 */
import { createInterface } from "node:readline";
import { hashString } from "../../src/features/hash.js";
import { openInput } from "../../src/corpus/open-input.js";
import { CLUSTERS_HEADER } from "../../src/output/clusters-tsv.js";
import { retrieval } from "../../src/eval/measures.js";
import { InputError, VertdupError } from "../../src/core/errors.js";
import { growableU32 } from "../../src/util/typed-arrays.js";

const TRUTH_HEADER = "doc\tordinal\tcluster\tkind";

/** Upper bounds of the true-cluster-size buckets (1: documents in no true cluster). */
const BUCKETS = [1, 2, 5, 10, 100, 1000, 10_000, Infinity];

export interface BucketResult {
  sizes: string;
  trueClusters: number;
  documents: number;
  truePairs: number;
  bothPairs: number;
  recall: number;
  /** True clusters found exactly (one found cluster with the same members). */
  exact: number;
  split: number;
  merged: number;
}

export interface PartitionComparison {
  truePairs: number;
  foundPairs: number;
  bothPairs: number;
  precision: number;
  recall: number;
  f: number;
  trueClusters: number;
  foundClusters: number;
  trueDocuments: number;
  foundDocuments: number;
  exact: number;
  split: number;
  merged: number;
  buckets: BucketResult[];
}

const pairs = (n: number) => (n * (n - 1)) / 2;

function sizesOf(of: Uint32Array): Uint32Array {
  let max = 0;
  for (const c of of) if (c > max) max = c;
  const size = new Uint32Array(max + 1);
  for (const c of of) size[c]++;
  size[0] = 0;
  return size;
}

/** Cluster numbers with the clusters of one member set to 0 (a singleton), and the sizes. */
function normalised(of: Uint32Array): { of: Uint32Array; size: Uint32Array } {
  const size = sizesOf(of);
  const out = of.map((c) => (size[c] > 1 ? c : 0));
  for (let c = 0; c < size.length; c++) if (size[c] === 1) size[c] = 0;
  return { of: out, size };
}

function bucketOf(size: number): number {
  let b = 0;
  while (size > BUCKETS[b]) b++;
  return b;
}

/**
 * Compares two partitions of documents 0 … n−1 given as cluster numbers per document
 * (same length; 0 or a cluster of one member: a singleton).
 */
export function comparePartitions(trueIn: Uint32Array, foundIn: Uint32Array): PartitionComparison {
  if (trueIn.length !== foundIn.length) throw new RangeError("partitions of different lengths");
  const n = trueIn.length;
  const { of: trueOf, size: trueSize } = normalised(trueIn);
  const { of: foundOf, size: foundSize } = normalised(foundIn);
  const stride = foundSize.length;
  let both = 0;
  for (let d = 0; d < n; d++) if (trueOf[d] > 0 && foundOf[d] > 0) both++;
  const keys = new Float64Array(both);
  for (let d = 0, k = 0; d < n; d++) if (trueOf[d] > 0 && foundOf[d] > 0) keys[k++] = trueOf[d] * stride + foundOf[d];
  keys.sort();

  // The largest cell of each true and each found cluster, and where it is.
  const maxT = new Uint32Array(trueSize.length).fill(1);
  const argT = new Uint32Array(trueSize.length);
  const maxF = new Uint32Array(foundSize.length).fill(1);
  const argF = new Uint32Array(foundSize.length);
  const bucketBoth = new Float64Array(BUCKETS.length);
  let bothPairs = 0;
  for (let k = 0; k < keys.length; ) {
    let e = k + 1;
    while (e < keys.length && keys[e] === keys[k]) e++;
    const count = e - k;
    const t = Math.floor(keys[k] / stride);
    const f = keys[k] - t * stride;
    bothPairs += pairs(count);
    bucketBoth[bucketOf(trueSize[t])] += pairs(count);
    if (count > maxT[t]) (maxT[t] = count), (argT[t] = f);
    if (count > maxF[f]) (maxF[f] = count), (argF[f] = t);
    k = e;
  }

  const buckets: BucketResult[] = BUCKETS.map((hi, b) => ({
    sizes: b === 0 ? "1" : hi === Infinity ? `>${BUCKETS[b - 1]}` : BUCKETS[b - 1] + 1 === hi ? `${hi}` : `${BUCKETS[b - 1] + 1}-${hi}`,
    trueClusters: 0,
    documents: 0,
    truePairs: 0,
    bothPairs: bucketBoth[b],
    recall: 1,
    exact: 0,
    split: 0,
    merged: 0,
  }));
  let truePairs = 0;
  let trueClusters = 0;
  let trueDocuments = 0;
  let exact = 0;
  for (let t = 1; t < trueSize.length; t++) {
    const size = trueSize[t];
    if (size === 0) continue;
    const bucket = buckets[bucketOf(size)];
    bucket.trueClusters++;
    bucket.truePairs += pairs(size);
    truePairs += pairs(size);
    trueClusters++;
    trueDocuments += size;
    if (maxT[t] === size && argT[t] > 0 && foundSize[argT[t]] === size) {
      bucket.exact++;
      exact++;
    }
  }
  let foundPairs = 0;
  let foundClusters = 0;
  let foundDocuments = 0;
  for (let f = 1; f < foundSize.length; f++) {
    if (foundSize[f] === 0) continue;
    foundPairs += pairs(foundSize[f]);
    foundClusters++;
    foundDocuments += foundSize[f];
  }

  const keptT = new Uint8Array(trueSize.length);
  const keptF = new Uint8Array(foundSize.length);
  let split = 0;
  let merged = 0;
  for (let d = 0; d < n; d++) {
    const t = trueOf[d];
    const f = foundOf[d];
    if (t === 0 && f === 0) continue;
    const bucket = buckets[t === 0 ? 0 : bucketOf(trueSize[t])];
    if (t > 0) bucket.documents++;
    if (t > 0 && (maxT[t] > 1 ? f !== argT[t] : keptT[t] === 1 || ((keptT[t] = 1), false))) {
      bucket.split++;
      split++;
    }
    if (f > 0 && (maxF[f] > 1 ? t !== argF[f] : keptF[f] === 1 || ((keptF[f] = 1), false))) {
      bucket.merged++;
      merged++;
    }
  }
  for (const b of buckets) b.recall = b.truePairs === 0 ? 1 : b.bothPairs / b.truePairs;
  const r = retrieval(truePairs, foundPairs, bothPairs);
  return {
    truePairs,
    foundPairs,
    bothPairs,
    precision: r.precision,
    recall: r.recall,
    f: r.f,
    trueClusters,
    foundClusters,
    trueDocuments,
    foundDocuments,
    exact,
    split,
    merged,
    buckets,
  };
}

/** An id as clusters.tsv escapes it (\t \n \r \\), unescaped. */
export function unescapeId(id: string): string {
  if (!id.includes("\\")) return id;
  return id.replace(/\\(.)/g, (_, c: string) => (c === "t" ? "\t" : c === "n" ? "\n" : c === "r" ? "\r" : c));
}

/**
 * Triples (ordinal, cluster, 32-bit hash of the id) of a TSV whose first three columns are id,
 * ordinal, cluster; `escaped`: ids are escaped as in clusters.tsv.
 */
async function readRows(path: string, header: string, columns: number, escaped: boolean): Promise<Uint32Array> {
  const rows = growableU32();
  const lines = createInterface({ input: openInput(path), crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      if (line === 1) {
        if (text !== header) throw new InputError(path, 1, `expected the header ${JSON.stringify(header)}`);
        continue;
      }
      if (text === "") continue;
      const f = text.split("\t");
      const ordinal = Number(f[1]);
      const cluster = Number(f[2]);
      if (f.length !== columns || !Number.isInteger(ordinal) || ordinal < 1 || ordinal >= 2 ** 32 || !Number.isInteger(cluster) || cluster < 0 || cluster >= 2 ** 32 - 1) {
        throw new InputError(path, line, "malformed row");
      }
      const v = rows.reserve(3);
      v[rows.length++] = ordinal;
      v[rows.length++] = cluster;
      v[rows.length++] = hashString(escaped ? unescapeId(f[0]) : f[0]) >>> 0;
    }
  } catch (err) {
    if (err instanceof VertdupError) throw err;
    throw new VertdupError(`${path}: cannot read (${err instanceof Error ? err.message : String(err)})`);
  }
  return rows.view();
}

/** Cluster numbers + 1 by 0-based ordinal (0: in no cluster; numbers in the files may start at 0). */
function scatter(rows: Uint32Array, n: number): Uint32Array {
  const of = new Uint32Array(n);
  for (let k = 0; k < rows.length; k += 3) of[rows[k] - 1] = rows[k + 1] + 1;
  return of;
}

function maxOrdinal(rows: Uint32Array): number {
  let max = 0;
  for (let k = 0; k < rows.length; k += 3) if (rows[k] > max) max = rows[k];
  return max;
}

/** Reads both files and compares; a document whose id differs between them is an error (another corpus). */
export async function checkClusters(clustersPath: string, truthPath: string): Promise<PartitionComparison> {
  const truth = await readRows(truthPath, TRUTH_HEADER, TRUTH_HEADER.split("\t").length, false);
  const found = await readRows(clustersPath, CLUSTERS_HEADER.trimEnd(), CLUSTERS_HEADER.split("\t").length, true);
  const n = Math.max(maxOrdinal(truth), maxOrdinal(found));
  const trueOf = scatter(truth, n);
  const idHash = new Uint32Array(n);
  for (let k = 0; k < truth.length; k += 3) idHash[truth[k] - 1] = truth[k + 2];
  for (let k = 0; k < found.length; k += 3) {
    const d = found[k] - 1;
    if (trueOf[d] > 0 && idHash[d] !== found[k + 2]) throw new VertdupError(`${clustersPath}: document ${d + 1} is not the one of ${truthPath} (another corpus?)`);
  }
  return comparePartitions(trueOf, scatter(found, n));
}

function summary(r: PartitionComparison): string {
  const pct = (x: number) => (100 * x).toFixed(2) + " %";
  const lines = [
    `true: ${r.trueClusters} clusters, ${r.trueDocuments} documents, ${r.truePairs} pairs; found: ${r.foundClusters} clusters, ${r.foundDocuments} documents, ${r.foundPairs} pairs`,
    `pairs: precision ${pct(r.precision)}, recall ${pct(r.recall)}, F ${pct(r.f)}; clusters found exactly ${r.exact}/${r.trueClusters}; documents split off ${r.split}, wrongly merged ${r.merged}`,
    "true size  clusters  documents  exact  pair recall  split  merged",
  ];
  for (const b of r.buckets) {
    if (b.trueClusters === 0 && b.merged === 0) continue;
    lines.push(
      `${b.sizes.padStart(9)}  ${String(b.trueClusters).padStart(8)}  ${String(b.documents).padStart(9)}  ${String(b.exact).padStart(5)}  ${pct(b.recall).padStart(11)}  ${String(b.split).padStart(5)}  ${String(b.merged).padStart(6)}`,
    );
  }
  return lines.join("\n") + "\n";
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.length !== 2) throw new VertdupError("usage: clusters-check OUT/clusters.tsv CORPUS.truth.tsv");
  const r = await checkClusters(args[0], args[1]);
  process.stdout.write(JSON.stringify(r) + "\n" + summary(r));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    process.stderr.write(`clusters-check: error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
