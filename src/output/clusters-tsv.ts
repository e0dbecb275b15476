import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { DocIds } from "./doc-ids.js";
import type { DocNames } from "./doc-names.js";
import { escapeField, unescapeField } from "./tsv-field.js";
import { InputError, VertdupError } from "../core/errors.js";
import { growableF64, growableU32 } from "../util/typed-arrays.js";
import type { GraphClusters } from "../clusters/graph-clusters.js";

export const CLUSTERS_FILE = "clusters.tsv";
export const CLUSTERS_HEADER = "doc\tordinal\tcluster\trepresentative\tdup_of\tsimilarity\n";
/** clusters.tsv of a run with `--against`: `index` names the index an old document comes from (empty for a new one). */
export const CLUSTERS_SOURCES_HEADER = "doc\tindex\tordinal\tcluster\trepresentative\tdup_of\tsimilarity\n";

/**
 * clusters.tsv rows in corpus order: per document in a cluster, its id (and index), 1-based
 * ordinal (names.ts), cluster, 1 when it is the representative (else 0), the id of the
 * document it was found similar to (GraphClusters.dupOf) and the similarity of the two under
 * the measure the threshold applied to (`-` for the representative, whose dup_of is itself).
 * Ids are escaped
 * (output/tsv-field.ts). `written`, when given, says which clusters to write (numbers stay
 * those of all clusters).
 */
export function* clusterLines(clusters: GraphClusters, names: DocNames, written?: Uint8Array): Generator<string> {
  const { clusterOf } = clusters;
  for (let d = 0; d < clusterOf.length; d++) {
    const c = clusterOf[d];
    if (c === 0 || (written !== undefined && written[c] === 0)) continue;
    const isRep = clusters.representative[c - 1] === d;
    const sim = isRep ? "-" : clusters.similarity(d).toFixed(4);
    yield `${names.name(d)}\t${names.ordinal(d)}\t${c}\t${isRep ? 1 : 0}\t${escapeField(names.ids.get(isRep ? d : clusters.dupOf(d)))}\t${sim}\n`;
  }
}

/** A row of clusters.tsv as `clean` needs it. */
export interface ClusterRow {
  id: string;
  cluster: number;
  representative: boolean;
  dupOf: string;
  /** As written (4 decimals), `-` for a representative. */
  similarity: string;
}

/**
 * clusters.tsv read into typed arrays by row (rows are in corpus order): ordinals, clusters,
 * representative flags, similarities, the rows' ids in one DocIds and the dup_of ids
 * interned in another.
 */
export class ClusterTable {
  constructor(
    /** 0-based corpus ordinals, increasing. */
    readonly ordinals: Uint32Array,
    private readonly clusters: Uint32Array,
    private readonly representatives: Uint32Array,
    private readonly similarities: Float64Array,
    private readonly ids: DocIds,
    private readonly dupOfs: Uint32Array,
    private readonly dupIds: DocIds,
  ) {}

  get rows(): number {
    return this.ordinals.length;
  }

  /** The cluster of each of `documents` documents by corpus ordinal, 0 for none. */
  clusterOf(documents: number): Uint32Array {
    const out = new Uint32Array(documents);
    for (let r = 0; r < this.ordinals.length; r++) out[this.ordinals[r]] = this.clusters[r];
    return out;
  }

  /** The row of the document at a 0-based corpus ordinal, if it is in a cluster. */
  row(ordinal: number): ClusterRow | undefined {
    let lo = 0;
    let hi = this.ordinals.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ordinals[mid] < ordinal) lo = mid + 1;
      else hi = mid;
    }
    if (lo === this.ordinals.length || this.ordinals[lo] !== ordinal) return undefined;
    const rep = this.representatives[lo] === 1;
    return {
      id: this.ids.get(lo),
      cluster: this.clusters[lo],
      representative: rep,
      dupOf: this.dupIds.get(this.dupOfs[lo]),
      similarity: rep ? "-" : this.similarities[lo].toFixed(4),
    };
  }
}

/**
 * Reads clusters.tsv, streaming, into a ClusterTable. A file of a run with `--against`
 * (CLUSTERS_SOURCES_HEADER) names old documents too: only the rows of new documents (empty
 * `index`) are this corpus's, and only they are kept.
 */
export async function readClustersTsv(path: string): Promise<ClusterTable> {
  const ordinals = growableU32();
  const clusters = growableU32();
  const reps = growableU32();
  const sims = growableF64();
  const dupOfs = growableU32();
  const ids = DocIds.empty();
  const dupIds = DocIds.empty();
  const stream = createReadStream(path);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  let sources = false;
  try {
    for await (const text of lines) {
      line++;
      if (line === 1) {
        sources = text + "\n" === CLUSTERS_SOURCES_HEADER;
        if (!sources && text + "\n" !== CLUSTERS_HEADER) throw new InputError(path, 1, "not a clusters.tsv header");
        continue;
      }
      const f = text.split("\t");
      if (sources) {
        if (f.length !== 7) throw new InputError(path, line, "malformed clusters.tsv row");
        if (f[1] !== "") continue;
        f.splice(1, 1);
      }
      const ordinal = Number(f[1]);
      const cluster = Number(f[2]);
      const similarity = f[5] === "-" ? NaN : Number(f[5]);
      if (
        f.length !== 6 ||
        !Number.isInteger(ordinal) ||
        ordinal < 1 ||
        ordinal > 0xffffffff ||
        !Number.isInteger(cluster) ||
        cluster < 1 ||
        (f[3] !== "0" && f[3] !== "1") ||
        (f[3] === "0" && !(similarity >= 0 && similarity <= 1))
      ) {
        throw new InputError(path, line, "malformed clusters.tsv row");
      }
      if (ordinals.length > 0 && ordinal - 1 <= ordinals.values[ordinals.length - 1]) {
        throw new InputError(path, line, `document ${ordinal} after document ${ordinals.values[ordinals.length - 1] + 1} (rows must be in corpus order)`);
      }
      ordinals.append([ordinal - 1]);
      clusters.append([cluster]);
      reps.append([f[3] === "1" ? 1 : 0]);
      sims.append([similarity]);
      ids.push(unescapeField(f[0]));
      dupOfs.append([dupIds.intern(unescapeField(f[4]))]);
    }
  } catch (err) {
    if (err instanceof VertdupError) throw err;
    throw new VertdupError(`${path}: cannot read (is --from an output directory of vertdup run?)`);
  }
  if (line === 0) throw new InputError(path, 1, "not a clusters.tsv header");
  return new ClusterTable(ordinals.view(), clusters.view(), reps.view(), sims.view(), ids, dupOfs.view(), dupIds);
}
