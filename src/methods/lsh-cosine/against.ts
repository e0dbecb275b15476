import type { TaskPool } from "../../executor/in-process-pool.js";
import type { PlebTasks } from "../../pleb/pleb-entry.js";
import type { PrepareManifest } from "../../features/prepare-manifest.js";
import { shardFile, vocabularyFile } from "../../workdir/layout.js";
import { countRowParts, flaggedRowsLoader } from "../../features/count-row-parts.js";
import type { CountsPart } from "../../features/workdir-vectors.js";
import type { ShardDocs } from "../../features/count-shard.js";
import { readKeptTerms, type KeptTerms, type VocabularyIndex } from "../../features/vocabulary.js";
import type { PlebOptions, PrepareOptions } from "../../core/options.js";
import type { ScanScope } from "../../pleb/pleb-step.js";
import { DocIds } from "../../output/doc-ids.js";
import { PairVerifier } from "../../pleb/pair-verifier.js";
import { readRunFileSync } from "../../util/run-file.js";
import type { SigRecord } from "../../sketch/signature-record.js";
import { storeRecords, type SignatureStore } from "../../runs/signature-store.js";
import { VertdupError } from "../../core/errors.js";
import { NumberMap } from "../../util/number-map.js";
import { concatU32 } from "../../util/typed-arrays.js";
import { DocSources } from "../../output/doc-sources.js";
import { LshIndex } from "./index.js";
import { linksInStore, searchKey } from "./links.js";

/**
 * How PLEB searches a batch with `--against` (README, lsh-cosine): `full` runs it over the
 * whole combined store (exactly the concatenated run); `new` compares only pairs with a new
 * document and takes the old documents' links from the index.
 */
export type AgainstScan = "new" | "full";

/** What a run with `--against` asks for, checked before any work. */
export interface AgainstRequest {
  against: readonly string[];
  /** --estimate-recall or --target-recall given. */
  recall: boolean;
}

/**
 * Refuses what lsh-cosine cannot do with --against, naming why (checkAgainstUse has the
 * refusals of every method): df limits (they would change with every batch), tf-idf against
 * several indices (each has its own frozen idf) and the sampled recall (its sample would
 * have to span the indices).
 */
export function checkAgainst(request: AgainstRequest, options: PrepareOptions): void {
  const { against } = request;
  if (against.length === 0) return;
  if (options.minDf !== 1 || Number.isFinite(options.maxDf)) {
    throw new VertdupError("--min-df and --max-df cannot be used with --against: which terms a df limit keeps changes with every batch (build the index and its batches without them)");
  }
  if (options.weighting === "tfidf" && against.length > 1) {
    throw new VertdupError(`--weighting tfidf compares with one index only (each index weighs with its own frozen idf), but --against names ${against.length}: give one, or use --weighting tf`);
  }
  if (request.recall) throw new VertdupError("--estimate-recall and --target-recall are not available with --against");
}

/**
 * The corpus of a run with `--against`: the indices' documents (in `--against` order, each at
 * its combined ordinal offset), then the batch's, read in the batch's work directory with
 * ordinals starting at `firstOrdinal`. Only the batch is read and signed; the indices give
 * their signature store (merged with the batch's runs into the combined store), their term
 * counts (verification), ids and token counts (outputs) and their frozen weights.
 */
export class SupplementedCorpus {
  /** The run's weights, made once (signing, verification and --update use them). */
  private weighted?: VocabularyIndex & { newTerms: KeptTerms };

  private constructor(
    readonly indices: readonly LshIndex[],
    readonly options: PrepareOptions,
    readonly scan: AgainstScan,
  ) {}

  static async open(dirs: readonly string[], options: PrepareOptions, scan: AgainstScan = "new"): Promise<SupplementedCorpus> {
    const indices: LshIndex[] = [];
    let offset = 0;
    for (const dir of dirs) {
      const index = await LshIndex.open(dir, options, offset);
      indices.push(index);
      offset += index.documents;
    }
    return new SupplementedCorpus(indices, options, scan);
  }

  /**
   * What PLEB searches (`--against-scan`): undefined for the whole combined store (`full`);
   * for `new`, the signatures holding a document after the first index's (the batch's, and
   * those of any later index, whose pairs no links of the first index cover) and the first
   * index's links. `new` needs links the index recorded under the same search (`searchKey`
   * of `options` and all its iterations); without them the whole store is searched, with a
   * warning. `documents`: the combined documents (signed or not). Where the index kept each
   * iteration's sorted keys (of the same seed and shift count), the scope maps its signatures
   * into the combined store, so that PLEB merges the new keys into them instead of sorting all.
   */
  scanScope(store: SignatureStore, documents: number, options: PlebOptions, warn: (message: string) => void): ScanScope | undefined {
    if (this.scan === "full") return undefined;
    const first = this.indices[0];
    const links = first.links();
    if (links === undefined || links.search !== searchKey(options, options.iterations)) {
      warn(`${first.dir} has no links of a search with these options (${links === undefined ? "none recorded" : `index: ${links.search}`}): searching the whole combined store, as --against-scan full`);
      return undefined;
    }
    const fresh = new Uint8Array(new SharedArrayBuffer(store.count));
    for (let i = 0; i < store.count; i++) if (store.docs[store.offsets[i + 1] - 1] >= first.documents) fresh[i] = 1;
    const scope = { fresh, links: linksInStore(links, store, documents) };
    if (!first.hasSortedKeys(options.seed, options.shiftCount)) return scope;
    // The first index's signatures in the combined store: those whose first document is the index's, in its store's order.
    const toCombined = new Uint32Array(first.signatures);
    let k = 0;
    for (let i = 0; i < store.count; i++) {
      if (store.docs[store.offsets[i]] >= first.documents) continue;
      if (k === toCombined.length) throw new VertdupError(`${first.dir}: the combined store holds more of the index's signatures than its store (${toCombined.length})`);
      toCombined[k++] = i;
    }
    if (k !== toCombined.length) throw new VertdupError(`${first.dir}: the combined store holds ${k} of the index's ${toCombined.length} signatures`);
    return { ...scope, keys: { path: (iteration: number) => first.sortedKeysPath(options.seed, options.shiftCount, iteration), toCombined } };
  }

  /** Combined ordinal of the batch's first document. */
  get firstOrdinal(): number {
    return this.indices.reduce((n, i) => n + i.documents, 0);
  }

  sources(newDocuments: number): DocSources {
    return new DocSources(
      this.indices.map((i) => ({ dir: i.dir, documents: i.documents })),
      newDocuments,
    );
  }

  /**
   * The ranks and weight factors of a run with --against: the batch's kept terms first (in
   * their order, so that the vector cache holds the batch's frequent terms), then the
   * indices' terms the batch lacks (their documents' vectors need a column). The factor is 1
   * under tf; under tf-idf the index's frozen idf ln(N₀/df), and ln(N₀/1) for a term the index
   * never saw (N₀: the base's documents). `batch`: the run's kept vocabulary, the same at
   * every call.
   */
  weights(batch: KeptTerms): VocabularyIndex & { newTerms: KeptTerms } {
    this.weighted ??= this.weigh(batch);
    return this.weighted;
  }

  private weigh(batch: KeptTerms): VocabularyIndex & { newTerms: KeptTerms } {
    const tables = this.indices.flatMap((i) => i.termTables());
    const indexDf = new NumberMap(tables.reduce((n, t) => n + t.terms.length, 0));
    for (const table of tables) for (let k = 0; k < table.terms.length; k++) if (indexDf.get(table.terms[k]) === undefined) indexDf.set(table.terms[k], table.dfs[k]);
    const tfidf = this.options.weighting === "tfidf";
    const n0 = this.indices[0].idfDocuments;
    const factor = (df: number) => (tfidf ? Math.log(n0 / df) : 1);
    const ranks = new NumberMap(batch.terms.length + indexDf.size, true);
    const factors = new Float64Array(new SharedArrayBuffer(8 * (batch.terms.length + indexDf.size)));
    const fresh = new Float64Array(batch.terms.length);
    let freshCount = 0;
    for (let k = 0; k < batch.terms.length; k++) {
      const df = indexDf.get(batch.terms[k]);
      if (df === undefined) fresh[freshCount++] = batch.terms[k];
      ranks.set(batch.terms[k], k);
      factors[k] = factor(df ?? 1);
    }
    for (const [term, df] of indexDf.entries()) {
      if (ranks.get(term) !== undefined) continue;
      factors[ranks.size] = factor(df);
      ranks.set(term, ranks.size);
    }
    const newTerms: KeptTerms = { terms: fresh.slice(0, freshCount), dfs: new Uint32Array(freshCount).fill(1) };
    return { ranks, factors: factors.subarray(0, ranks.size), newTerms };
  }

  /** The indices' stores as sorted records at their combined ordinals, to merge with the batch's runs. */
  storeStreams(): AsyncIterable<SigRecord>[] {
    return this.indices.map((i) => storeRecords(i.storeFiles(), this.options.bits, i.offset));
  }

  /** Term counts of every document: the indices' shards, then the batch's (already at combined ordinals). */
  private countsParts(workdir: string, shards: number): CountsPart[] {
    const parts: CountsPart[] = [];
    for (const index of this.indices) for (let s = 0; s < index.shards; s++) parts.push({ path: index.shardPath(s, "counts"), offset: index.offset });
    for (let s = 0; s < shards; s++) parts.push({ path: shardFile(workdir, s, "counts"), offset: 0 });
    return parts;
  }

  private docsFiles(workdir: string, shards: number): string[] {
    const files: string[] = [];
    for (const index of this.indices) for (let s = 0; s < index.shards; s++) files.push(index.shardPath(s, "docs"));
    for (let s = 0; s < shards; s++) files.push(shardFile(workdir, s, "docs"));
    return files;
  }

  /** Ids in the combined order. */
  ids(workdir: string, shards: number): DocIds {
    const ids = DocIds.empty();
    for (const file of this.docsFiles(workdir, shards)) for (const id of readRunFileSync<ShardDocs>(file)[0].ids) ids.push(id);
    return ids;
  }

  /** Token counts in the combined order. */
  /** The partition values of each shard's documents (loadDocParts), the indices' first. */
  parts(workdir: string, shards: number): (string[] | undefined)[] {
    return this.docsFiles(workdir, shards).map((file) => readRunFileSync<ShardDocs>(file)[0].parts);
  }

  tokens(workdir: string, shards: number): Uint32Array {
    return concatU32(this.docsFiles(workdir, shards).map((file) => readRunFileSync<ShardDocs>(file)[0].tokens));
  }

  /**
   * `--verify`'s verifier over the combined store: the vectors of each signature's first
   * document, old or new, under the run's weights (read on the pool). With `--against-scan
   * new` none is read now: a signature's vector is read when a candidate or an output edge
   * needs it (PairVerifier.require), the candidates of all iterations in one pass (plebStep),
   * so that only the documents some candidate meets are read, new or old.
   */
  async verifier(workdir: string, prepared: PrepareManifest, store: SignatureStore, threshold: number, pool: TaskPool<PlebTasks>, scope?: ScanScope): Promise<PairVerifier> {
    const documents = this.firstOrdinal + prepared.counts.documents;
    const weights = this.weights(batchTerms(workdir));
    const parts = this.countsParts(workdir, prepared.counts.shards);
    if (scope === undefined) {
      const first = new Uint8Array(new SharedArrayBuffer(documents));
      for (let i = 0; i < store.count; i++) first[store.docs[store.offsets[i]]] = 1;
      return new PairVerifier(await countRowParts(parts, weights, first, pool), weights.factors, store, documents, threshold);
    }
    // Each counts file holds the next documents in the combined order (as `ids` reads them):
    // a load reads only the files with a flagged document.
    const docs = this.docsFiles(workdir, prepared.counts.shards).map((file) => readRunFileSync<ShardDocs>(file)[0].tokens.length);
    return new PairVerifier([], weights.factors, store, documents, threshold, flaggedRowsLoader(parts, docs, weights, pool));
  }
}

/** The batch's kept vocabulary (its own df), as its vocabulary step wrote it. */
export function batchTerms(workdir: string): KeptTerms {
  return readKeptTerms(vocabularyFile(workdir));
}
