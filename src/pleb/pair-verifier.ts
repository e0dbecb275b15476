import type { WorkerPool } from "../coordinator/pool.js";
import type { PrepareManifest } from "../coordinator/prepare-manifest.js";
import { loadCountRows, type CountRows } from "../reference/count-rows.js";
import type { SignatureStore } from "../runs/signature-store.js";

/**
 * Exact verification of PLEB's candidates (`--verify`): the cosine of the tf or tf-idf
 * vectors the signatures were made from, for a pair of signatures (store indices), read
 * from the vector of each signature's first document. Documents that share a signature
 * have (to 1024 random bits) the same direction, so one vector per signature is enough.
 *
 * Verification runs on the coordinator between an iteration's scan and its union step,
 * so a rejected pair never joins clusters and the pairs kept do not depend on how the scan
 * was cut into tasks. Its cost is one sparse dot product per candidate. The vectors are
 * kept as term counts (CountRows: about 3 bytes per (document, term)).
 */
export class PairVerifier {
  /** Row of each signature's vector in `rows`, −1 when it has none. */
  private readonly rowOf: Int32Array;
  private readonly scratch: Float64Array;
  /** Candidates checked and rejected so far. */
  checked = 0;
  rejected = 0;

  constructor(
    readonly rows: CountRows,
    store: SignatureStore,
    documents: number,
    readonly threshold: number,
  ) {
    const rowOfDoc = new Int32Array(documents).fill(-1);
    for (let r = 0; r < rows.ordinals.length; r++) rowOfDoc[rows.ordinals[r]] = r;
    this.rowOf = new Int32Array(store.count);
    for (let i = 0; i < store.count; i++) this.rowOf[i] = rowOfDoc[store.docs[store.offsets[i]]];
    this.scratch = new Float64Array(rows.factors.length);
  }

  /** The vectors of the signatures' first documents, from a prepared work directory (read on the pool, if given). */
  static async load(workdir: string, prepared: PrepareManifest, store: SignatureStore, threshold: number, pool?: WorkerPool): Promise<PairVerifier> {
    const documents = prepared.counts.documents;
    const first = new Uint8Array(new SharedArrayBuffer(documents));
    for (let i = 0; i < store.count; i++) first[store.docs[store.offsets[i]]] = 1;
    return new PairVerifier(await loadCountRows(workdir, prepared, first, pool), store, documents, threshold);
  }

  /** Exact cosine of signatures i and j (NaN when one has no vector). */
  cosine(i: number, j: number): number {
    const a = this.rowOf[i];
    const b = this.rowOf[j];
    return a < 0 || b < 0 ? NaN : this.rows.cosine(a, b, this.scratch);
  }

  /** The (i, j, distance) triples whose cosine is ≥ the threshold, in their order. */
  filter(triples: Uint32Array): Uint32Array {
    let kept = 0;
    const out = new Uint32Array(triples.length);
    for (let k = 0; k < triples.length; k += 3) {
      if (this.cosine(triples[k], triples[k + 1]) >= this.threshold) {
        out[kept++] = triples[k];
        out[kept++] = triples[k + 1];
        out[kept++] = triples[k + 2];
      }
    }
    this.checked += triples.length / 3;
    this.rejected += (triples.length - kept) / 3;
    return out.subarray(0, kept);
  }
}
