import type { SkippedDocs } from "../../corpus/chunker.js";
import { DocIds } from "../../output/doc-ids.js";
import { DocSources } from "../../output/doc-sources.js";
import { concatU32 } from "../../util/typed-arrays.js";
import { checkAgainstUse, readIndex, requireCompatible, type IndexManifest } from "../../workdir/index-store.js";
import { loadIndexShards } from "./method-index.js";
import type { MethodRun, SetMethodSpec } from "./set-method.js";
import type { ShardBase } from "./shard-scan.js";

/** An `--against` index in the run: its directory (as given), manifest, and the run's ordinal of its first document. */
export interface PlacedIndex {
  dir: string;
  manifest: IndexManifest;
  offset: number;
}

/**
 * The documents a set method's search and outputs cover: the `--against` indices' then the
 * inputs', in the order of one run over their concatenation.
 */
export interface RunDocuments {
  /** Every document's shard, the indices' first; ordinals of the combined order, ids moved to `ids`. */
  shards: ShardBase[];
  /** The inputs' shards (the tail of `shards`). */
  fresh: ShardBase[];
  /** Combined ordinal of the inputs' first document. */
  firstNew: number;
  newDocuments: number;
  /** The inputs' documents skipped for their size. */
  skipped: SkippedDocs;
  indices: PlacedIndex[];
  /** Where each document comes from (only with --against). */
  sources?: DocSources;
  ids: DocIds;
  /** Token lines of each document. */
  tokens: Uint32Array;
}

/** Refuses `--against`/`--update` combinations issue 15 refuses, before any lock is taken. */
export async function checkAgainst(run: MethodRun, workdir: string): Promise<void> {
  checkAgainstUse(run.against ?? [], { update: run.update === true, workdir });
  // Said plainly before taking the lock, which needs the directory; read again under it.
  if (run.update === true) await readIndex((run.against ?? [])[0]);
}

/** The `--against` indices in the run's order, read and checked compatible with the run of `method`. */
export async function readIndices(run: MethodRun, method: SetMethodSpec): Promise<PlacedIndex[]> {
  const placed: PlacedIndex[] = [];
  let offset = 0;
  for (const dir of run.against ?? []) {
    const manifest = await readIndex(dir);
    requireCompatible(dir, manifest, run.method, method.indexOptions(run.features));
    placed.push({ dir, manifest, offset });
    offset += manifest.documents;
  }
  return placed;
}

/**
 * The run's documents: the indices' stored shards, then the features step's, which it takes
 * over (their ordinals moved after the indices', their ids into `ids`).
 */
export function runDocuments(features: { shards: ShardBase[]; skipped: SkippedDocs }, indices: PlacedIndex[]): RunDocuments {
  const { shards: fresh, skipped } = features;
  const newDocuments = fresh.reduce((n, s) => n + s.tokens.length, 0);
  const sources = indices.length === 0 ? undefined : new DocSources(indices.map((x) => ({ dir: x.dir, documents: x.manifest.documents })), newDocuments);
  const firstNew = sources?.firstNew ?? 0;
  for (const s of fresh) s.firstDoc += firstNew;
  const shards = [...indices.flatMap((x) => loadIndexShards(x.dir, x.manifest, x.offset)), ...fresh];
  const ids = DocIds.fromLists(shards.map((s) => s.ids));
  // The ids are held once, in `ids`.
  for (const s of shards) s.ids = [];
  const tokens = concatU32(shards.map((s) => s.tokens));
  return { shards, fresh, firstNew, newDocuments, skipped, indices, sources, ids, tokens };
}
