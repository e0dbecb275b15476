import { type InputDigest, INDEX_MANIFEST, IndexUpdate, newIndex, partitionIndexOption, readIndex, requireCompatible, type IndexManifest } from "../../workdir/index-store.js";
import { existsSync, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { PrepareManifest } from "../../features/prepare-manifest.js";
import { linksFile, shardFile, shardName, storeFiles, vocabularyFile, type ShardFileKind } from "../../workdir/layout.js";
import { readKeptTerms, type KeptTerms } from "../../features/vocabulary.js";
import type { PrepareOptions } from "../../core/options.js";
import { encodeRecords } from "../../util/run-file.js";
import type { StoreFiles } from "../../runs/signature-store.js";
import { linkOrCopy, writeAtomic } from "../../util/atomic.js";
import { vectorsName } from "../../workdir/run-config.js";
import { projectionFormat } from "../../sketch/random-vectors.js";
import { VertdupError } from "../../core/errors.js";
import { killPoint } from "../../util/kill-point.js";
import { concatF64, concatU32 } from "../../util/typed-arrays.js";
import { keysFolder, sortedKeysName, sortedKeysRole, sortedKeysRoot, SORTED_KEYS_ROLE } from "../../pleb/stored-keys.js";
import { digestInputs } from "../../workdir/batch-digest.js";
import { readRunLinks, type RunLinks } from "./links.js";

/**
 * A saved index of lsh-cosine: a run's work directory whose index.json lists, by role,
 * - `vocabulary`: the base's kept terms with their df (vocab.zst), frozen: every batch is
 *   weighted with the base's idf, ln(N₀/df), N₀ the base's documents;
 * - `added-terms`: terms first seen in batches added by --update (df recorded as 1, the weight
 *   they were signed with), so that the vectors of every indexed document can be rebuilt;
 * - `signatures`, `offsets`, `docs`: the signature store of all indexed documents;
 * - `shard-NNNNNN-counts`, `shard-NNNNNN-docs`: each shard's term counts (what verification
 *   reads) and ids and token counts, numbered over all batches, ordinals over all batches;
 * - `links`: the pairs the last run over the index's documents kept, by document (RunLinks),
 *   which `--against-scan new` takes for the old documents' pairs (absent in older indices);
 * - `sort-keys-seedS-shiftX-NNNN`: PLEB iteration NNNN's sorted keys of the store
 *   (pleb/stored-keys.ts), which `--against-scan new` merges the batch's keys into (absent in
 *   older indices and runs without them: the batch then sorts the keys of all signatures).
 * The base run's own files are listed where they are; --update writes new ones.
 */
export const LSH_METHOD = "lsh-cosine";

const VOCABULARY = "vocabulary";
const ADDED_TERMS = "added-terms";
const LINKS = "links";
const STORE_ROLES = ["signatures", "offsets", "docs"] as const;
type IndexShardKind = Extract<ShardFileKind, "counts" | "docs">;
const SHARD_KINDS: readonly IndexShardKind[] = ["counts", "docs"];

function shardRole(shard: number, kind: IndexShardKind): string {
  return `shard-${shardName(shard)}-${kind}`;
}

/** The key of the int8 vectors' format among an index's options (absent with float32 and in vertdup 0.3.0's int8 indices). */
const FORMAT_OPTION = "projection-format";

/**
 * The options that decide the signatures, by command-line name: an index's compatibility
 * options; `format`: the vectors' format its signatures were made with (this version's for
 * the projection unless a work directory records another).
 */
export function lshIndexOptions(o: PrepareOptions, format = projectionFormat(o.projection)): Record<string, unknown> {
  return {
    ...(format === undefined ? {} : { [FORMAT_OPTION]: format }),
    "--bits": o.bits,
    "--seed": o.seed,
    "--projection": o.projection,
    "--weighting": o.weighting,
    "--column": o.column,
    "--normalize": o.normalize,
    "--lowercase": o.lowercase,
    "--keep-numbers": o.keepNumbers,
    "--shingle-size": o.shingleSize,
    "--min-df": o.minDf,
    "--max-df": Number.isFinite(o.maxDf) ? o.maxDf : "none",
    ...partitionIndexOption(o),
  };
}

/**
 * Makes a completed run's work directory an index of its corpus, listing the run's own
 * files. A resumed run over an index that batches were appended to leaves it as it is: its
 * corpus is the index's base, and rewriting index.json would drop the batches.
 */
export async function saveRunIndex(workdir: string, prepared: PrepareManifest): Promise<void> {
  if (existsSync(join(workdir, INDEX_MANIFEST)) && (await readIndex(workdir)).batches.length > 1) return;
  const update = new IndexUpdate(workdir, newIndex(LSH_METHOD, lshIndexOptions(prepared.options, prepared.projectionFormat)), prepared.inputs, await digestInputs(prepared.inputs), prepared.counts.documents);
  update.keep(VOCABULARY, vocabularyFile(workdir));
  const store = storeFiles(workdir);
  for (const role of STORE_ROLES) update.keep(role, store[role]);
  for (let i = 0; i < prepared.counts.shards; i++) for (const kind of SHARD_KINDS) update.keep(shardRole(i, kind), shardFile(workdir, i, kind));
  update.keep(LINKS, linksFile(workdir));
  for (const [role, path] of await sortedKeysFiles(workdir)) update.keep(role, path);
  await update.commit();
}

/** A work directory's sorted keys files (runIterations' keys.save) by their index role. */
async function sortedKeysFiles(workdir: string): Promise<[string, string][]> {
  const root = sortedKeysRoot(workdir);
  if (!existsSync(root)) return [];
  const files: [string, string][] = [];
  for (const folder of (await readdir(root)).sort()) {
    for (const name of (await readdir(join(root, folder))).filter((f) => f.endsWith(".u32")).sort()) files.push([sortedKeysRole(folder, name), join(root, folder, name)]);
  }
  return files;
}

/** An opened lsh-cosine index, its documents at combined ordinals `offset` onwards. */
export class LshIndex {
  /** Shards over all batches. */
  readonly shards: number;

  private constructor(
    readonly dir: string,
    readonly manifest: IndexManifest,
    readonly offset: number,
  ) {
    let n = 0;
    while (manifest.files[shardRole(n, "counts")] !== undefined) n++;
    this.shards = n;
  }

  /** Opens `dir` as given on the command line, refusing another method or other signature options. */
  static async open(dir: string, options: PrepareOptions, offset: number): Promise<LshIndex> {
    const manifest = await readIndex(dir);
    const format = projectionFormat(options.projection);
    if (manifest.method === LSH_METHOD && manifest.options["--projection"] === options.projection && manifest.options[FORMAT_OPTION] !== format) {
      throw new VertdupError(`${dir}: the index's ${options.projection} vectors are ${vectorsName(manifest.options[FORMAT_OPTION] as number | undefined)}, this version's ${vectorsName(format)}: their signatures do not mix; build a new index`);
    }
    requireCompatible(dir, manifest, LSH_METHOD, lshIndexOptions(options));
    return new LshIndex(dir, manifest, offset);
  }

  private path(role: string): string {
    return join(this.dir, this.manifest.files[role]);
  }

  get documents(): number {
    return this.manifest.documents;
  }

  /** Documents of the base, over which the idf is frozen. */
  get idfDocuments(): number {
    return this.manifest.batches[0].documents;
  }

  shardPath(shard: number, kind: IndexShardKind): string {
    return this.path(shardRole(shard, kind));
  }

  storeFiles(): StoreFiles {
    return { signatures: this.path("signatures"), offsets: this.path("offsets"), docs: this.path("docs") };
  }

  /** The links of the run that made or last updated the index, if it recorded them. */
  links(): RunLinks | undefined {
    return this.manifest.files[LINKS] === undefined ? undefined : readRunLinks(this.path(LINKS));
  }

  /** Distinct signatures of the store. */
  get signatures(): number {
    return statSync(this.path("offsets")).size / 4 - 1;
  }

  /** Whether the index kept the sorted keys of PLEB iterations under this seed and shift count. */
  hasSortedKeys(seed: number, shiftCount: number): boolean {
    const prefix = `${SORTED_KEYS_ROLE}${keysFolder(seed, shiftCount)}-`;
    return Object.keys(this.manifest.files).some((role) => role.startsWith(prefix));
  }

  /** Path of an iteration's (1-based) sorted keys, if the index kept them. */
  sortedKeysPath(seed: number, shiftCount: number, iteration: number): string | undefined {
    const role = sortedKeysRole(keysFolder(seed, shiftCount), sortedKeysName(iteration));
    return this.manifest.files[role] === undefined ? undefined : this.path(role);
  }

  /** The frozen vocabulary, then the terms batches added (df 1). */
  termTables(): KeptTerms[] {
    const roles = [VOCABULARY, ...(this.manifest.files[ADDED_TERMS] === undefined ? [] : [ADDED_TERMS])];
    return roles.map((role) => readKeptTerms(this.path(role)));
  }

  /**
   * Appends a batch run with `--against` this index alone (its ordinals are the index's), of
   * inputs with these `digests` (checkedDigests): its shards, the merged store (which holds the index's documents and the batch's), the
   * run's links (over all of them), its PLEB iterations' sorted keys (of the merged store) and the terms it saw first, as one IndexUpdate. `VERTDUP_FAULT=kill:<point>` kills the process
   * at `update-start`, `update-file` (after the first file), `update-files` (all written, not
   * committed) or `index:after-commit` (committed, not collected).
   */
  async append(batchWorkdir: string, prepared: PrepareManifest, newTerms: KeptTerms, digests: readonly (InputDigest | null)[]): Promise<void> {
    const update = new IndexUpdate(this.dir, this.manifest, prepared.inputs, digests, prepared.counts.documents);
    killPoint("update-start");
    const copy = async (role: string, name: string, from: string) => {
      await linkOrCopy(from, await update.file(role, name));
      killPoint("update-file");
    };
    for (let i = 0; i < prepared.counts.shards; i++) {
      for (const kind of SHARD_KINDS) await copy(shardRole(this.shards + i, kind), `${shardName(this.shards + i)}.${kind}.zst`, shardFile(batchWorkdir, i, kind));
    }
    const store = storeFiles(batchWorkdir);
    for (const role of STORE_ROLES) await copy(role, `${role}.u32`, store[role]);
    await copy(LINKS, "links.zst", linksFile(batchWorkdir));
    // The index's sorted keys are of its old store: replaced by the batch's (of the merged store), or gone.
    for (const role of Object.keys(update.manifest.files)) if (role.startsWith(SORTED_KEYS_ROLE)) update.forget(role);
    for (const [role, path] of await sortedKeysFiles(batchWorkdir)) await copy(role, `${role}.u32`, path);
    if (newTerms.terms.length > 0) {
      const old = this.termTables()[1];
      const all: KeptTerms = old === undefined ? newTerms : { terms: concatF64([old.terms, newTerms.terms]), dfs: concatU32([old.dfs, newTerms.dfs]) };
      await writeAtomic(await update.file(ADDED_TERMS, "added-terms.zst"), encodeRecords([all]));
    }
    killPoint("update-files");
    await update.commit();
  }
}
