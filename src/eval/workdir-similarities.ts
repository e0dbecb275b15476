import { readPrepareManifest } from "../features/prepare-manifest.js";
import { loadDocIds, type DocIds } from "../output/doc-ids.js";
import { signatureOfDocument } from "../output/pairs.js";
import { hammingDistance } from "../pleb/hamming.js";
import { loadSignatureStore, type SignatureStore } from "../runs/signature-store.js";
import { rowCosine, type SparseRows } from "../features/sparse-rows.js";
import { loadWorkdirVectors } from "../features/workdir-vectors.js";

/**
 * Exact cosine and relative Hamming similarity of any pair of documents of a prepared work
 * directory, by id; NaN for a document that has no vector (and so no signature).
 */
export class WorkdirSimilarities {
  private readonly rowOf: Int32Array;
  private readonly sigOf: Uint32Array;
  private readonly scratch: Float64Array;

  private constructor(
    readonly rows: SparseRows,
    readonly store: SignatureStore,
    private readonly ids: DocIds,
  ) {
    this.rowOf = new Int32Array(ids.length).fill(-1);
    for (let r = 0; r < rows.ordinals.length; r++) this.rowOf[rows.ordinals[r]] = r;
    this.sigOf = signatureOfDocument(store, ids.length);
    this.scratch = new Float64Array(rows.columns);
  }

  static async load(workdir: string): Promise<WorkdirSimilarities> {
    const prepared = await readPrepareManifest(workdir);
    const ids = loadDocIds(workdir, prepared.counts.shards);
    return new WorkdirSimilarities(loadWorkdirVectors(workdir, prepared), loadSignatureStore(workdir, prepared.options.bits), ids);
  }

  /** Ordinal of a document id, or undefined. */
  ordinalOf(id: string): number | undefined {
    return this.ids.ordinalOf(id);
  }

  cosine(a: number, b: number): number {
    const ra = this.rowOf[a];
    const rb = this.rowOf[b];
    return ra < 0 || rb < 0 ? NaN : rowCosine(this.rows, ra, rb, this.scratch);
  }

  hamming(a: number, b: number): number {
    const sa = this.sigOf[a];
    const sb = this.sigOf[b];
    if (sa === 0xffffffff || sb === 0xffffffff) return NaN;
    return 1 - hammingDistance(this.store.signatures, sa, sb, this.store.words) / (this.store.words * 32);
  }
}
