import type { TaskPool } from "../executor/in-process-pool.js";
import type { PlebTasks } from "./pleb-entry.js";
import type { PrepareManifest } from "../features/prepare-manifest.js";
import { CountRows, countRowWeights, type CountRowsPart } from "../features/count-rows.js";
import { flaggedRowsLoader } from "../features/count-row-parts.js";
import { workdirCountsParts } from "../features/workdir-vectors.js";
import type { SignatureStore } from "../runs/signature-store.js";
import { NumberMap } from "../util/number-map.js";
import { meetsThreshold } from "../util/similarity-threshold.js";

/**
 * Exact verification of PLEB's candidates (`--verify`): the cosine of the tf or tf-idf
 * vectors the signatures were made from, for a pair of signatures (store indices), read
 * from the vector of each signature's first document. Documents that share a signature
 * have (to 1024 random bits) the same direction, so one vector per signature is enough.
 *
 * Verification runs on the coordinator before a candidate is offered to the iteration's
 * sink, so a rejected pair never joins clusters and the pairs kept do not depend on how the
 * scan was cut into tasks. Its cost is one sparse dot product per candidate. The vectors are
 * kept as term counts (CountRows: about 3 bytes per (document, term)), with a `loader` only
 * those some candidate or written edge needs (`require`).
 */
export class PairVerifier {
  /** Row of each signature's vector in `rows`, −1 when it has none. */
  private rowOf!: Int32Array;
  private rows!: CountRows;
  private readonly scratch: Float64Array;
  /** With a `loader`: the row parts loaded so far, and the signatures whose rows were asked for. */
  private readonly parts: CountRowsPart[];
  private readonly asked: Uint8Array;
  /** The verdict of each pair checked (`accepts`): 1 accepted, 0 rejected. */
  private readonly verdicts = new NumberMap();
  /** Candidates checked and rejected so far. */
  checked = 0;
  rejected = 0;

  /**
   * `parts`: the rows loaded now; `loader` (a work directory's, `open`, or `--against-scan
   * new`'s): loads the rows of other flagged documents when `require` asks for them, so that
   * only the documents some candidate meets are read.
   */
  constructor(
    parts: CountRowsPart[],
    readonly factors: Float64Array,
    private readonly store: SignatureStore,
    private readonly documents: number,
    readonly threshold: number,
    private readonly loader?: (documents: Uint8Array) => Promise<CountRowsPart[]>,
  ) {
    this.parts = [...parts];
    this.asked = new Uint8Array(loader === undefined ? 0 : store.count);
    this.index();
    for (let i = 0; i < this.asked.length; i++) if (this.rowOf[i] >= 0) this.asked[i] = 1;
    this.scratch = new Float64Array(factors.length);
  }

  /** Whether rows are loaded on demand (`require`) rather than all at once. */
  get lazy(): boolean {
    return this.loader !== undefined;
  }

  private index(): void {
    const { store } = this;
    this.rows = new CountRows(this.parts, this.factors);
    const rowOfDoc = new Int32Array(this.documents).fill(-1);
    for (let r = 0; r < this.rows.ordinals.length; r++) rowOfDoc[this.rows.ordinals[r]] = r;
    this.rowOf = new Int32Array(store.count);
    for (let i = 0; i < store.count; i++) this.rowOf[i] = rowOfDoc[store.docs[store.offsets[i]]];
  }

  /** Loads (lazy verifier) the vectors of the signatures in `signatures` not asked for before. */
  async require(...signatures: ArrayLike<number>[]): Promise<void> {
    if (this.loader === undefined) return;
    const { store } = this;
    const flags = new Uint8Array(new SharedArrayBuffer(this.documents));
    let wanted = 0;
    for (const list of signatures) {
      for (let k = 0; k < list.length; k++) {
        const i = list[k];
        if (this.asked[i] === 1) continue;
        this.asked[i] = 1;
        flags[store.docs[store.offsets[i]]] = 1;
        wanted++;
      }
    }
    if (wanted === 0) return;
    this.parts.push(...(await this.loader(flags)).filter((p) => p.ordinals.length > 0));
    this.index();
  }

  /**
   * The verifier of a prepared work directory, holding no vector yet: `require` reads those
   * of the signatures' first documents that candidates meet, from the counts files holding
   * one (`docs`: the documents of each shard), on the pool if given. All 980,550 signatures'
   * rows of 1 M documents took about 500 MB; the candidates of 100 iterations meet a few
   * percent of them.
   */
  static open(workdir: string, prepared: PrepareManifest, store: SignatureStore, threshold: number, docs: readonly number[], pool?: TaskPool<PlebTasks>): PairVerifier {
    const weights = countRowWeights(workdir, prepared, true);
    const load = flaggedRowsLoader(workdirCountsParts(workdir, 0, prepared.counts.shards), docs, weights, pool);
    return new PairVerifier([], weights.factors, store, prepared.counts.documents, threshold, load);
  }

  /** Exact cosine of signatures i and j (NaN when one has no vector). */
  cosine(i: number, j: number): number {
    const a = this.rowOf[i];
    const b = this.rowOf[j];
    return a < 0 || b < 0 ? NaN : this.rows.cosine(a, b, this.scratch);
  }

  /**
   * Whether the candidate (i, j) passes: its cosine is ≥ the threshold (counted). The verdict
   * is kept: later iterations offer a rejected pair again (1 M documents: 0.94 M rejections
   * of a few thousand pairs), and every group, or every iteration under `--pairs all`, an
   * accepted one.
   */
  accepts(i: number, j: number): boolean {
    const n = this.store.count;
    // Keyed by (i, j) in this order (the cosine's bits may depend on it), exact while n² < 2^53.
    const key = n * n < 2 ** 53 ? i * n + j : undefined;
    let ok = key === undefined ? undefined : this.verdicts.get(key);
    if (ok === undefined) {
      ok = meetsThreshold(this.cosine(i, j), this.threshold) ? 1 : 0;
      if (key !== undefined) this.verdicts.set(key, ok);
    }
    this.checked++;
    if (ok === 0) this.rejected++;
    return ok === 1;
  }

  /** The (i, j, distance) triples whose cosine is ≥ the threshold, in their order. */
  filter(triples: Uint32Array): Uint32Array {
    let kept = 0;
    const out = new Uint32Array(triples.length);
    for (let k = 0; k < triples.length; k += 3) {
      if (this.accepts(triples[k], triples[k + 1])) {
        out[kept++] = triples[k];
        out[kept++] = triples[k + 1];
        out[kept++] = triples[k + 2];
      }
    }
    return out.subarray(0, kept);
  }
}
