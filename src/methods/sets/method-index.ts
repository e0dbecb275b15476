import { join } from "node:path";
import { emptyWarnings } from "../../corpus/vertical.js";
import type { EdgeList } from "../../clusters/duplicate-graph.js";
import type { FeatureOptions } from "../../core/method-options.js";
import type { KnownEdges } from "../minhash/search.js";
import type { ShardBase } from "./shard-scan.js";
import type { DocIds } from "../../output/doc-ids.js";
import { edgeOrder } from "../../output/pairs.js";
import { readRunFileSync, writeRunFile } from "../../util/run-file.js";
import { linkOrCopy } from "../../util/atomic.js";
import { killPoint } from "../../util/kill-point.js";
import { partitionIndexOption, type IndexManifest, type IndexUpdate } from "../../workdir/index-store.js";

/**
 * The index of a method of `run --method` other than lsh-cosine: per batch k, the role
 * `batch<k>` is a run file of the batch's shards (ids, token counts and the method's features
 * as the chunk tasks made them: SHA-256 digests, simhashes, band keys and set digests,
 * paragraph fingerprint sets), and for minhash `batch<k>.sets<i>` are the shards' sets
 * files (the shingle hashes that verification reads). A run with `--against` puts these
 * shards before its own and runs the method's candidate search again over all of them: it is
 * cheap next to reading and hashing a corpus (candidates from sorted keys), and it makes the
 * result that of one run over the concatenation by construction, also where new documents
 * change old documents' candidates (a bucket that grows past the all-pairs bound, a
 * paragraph that becomes common and leaves the prefix filter). Verification is cheap too
 * (bit distances, in-memory sets) except for minhash, which reads shingle sets from disk:
 * its index also keeps its edges (role `edges`), which answer for candidate pairs inside one
 * index (KnownEdges in minhash-search.ts says why that stays exact), so only pairs with a
 * new document are verified.
 */

/** A shard as stored: ShardBase without warnings, ordinals from the batch's first document. */
type StoredShard = Omit<ShardBase, "warnings"> & { sets?: string };

const role = (batch: number) => `batch${batch}`;

/**
 * Adds `shards` (the batch's documents from `firstDoc` on, whose ids `ids` holds) to the
 * index being updated: the shards' run file and, for a shard with a sets file, that file
 * (hard-linked when the index is on the same file system, else copied).
 */
export async function saveBatch(update: IndexUpdate, shards: readonly ShardBase[], ids: DocIds, firstDoc: number): Promise<void> {
  const batch = update.manifest.batches.length - 1;
  const records: StoredShard[] = [];
  for (const [i, shard] of shards.entries()) {
    const record: StoredShard = { ...shard, firstDoc: shard.firstDoc - firstDoc, ids: [] };
    delete (record as Partial<ShardBase>).warnings;
    for (let d = 0; d < shard.tokens.length; d++) record.ids.push(ids.get(shard.firstDoc + d));
    if (record.sets !== undefined) {
      const name = `${role(batch)}.sets${i}`;
      await linkOrCopy(record.sets, await update.file(name, `${name}.f64`));
      record.sets = name;
      killPoint("index:files");
    }
    records.push(record);
  }
  await writeRunFile(await update.file(role(batch), `${role(batch)}.zst`), records);
}

/**
 * The shards of every batch of the index at `dir`, in ordinal order, numbered from `offset`
 * (the index's first document in the run's combined order), sets files as paths.
 */
export function loadIndexShards<S extends ShardBase>(dir: string, manifest: IndexManifest, offset: number): S[] {
  const shards: S[] = [];
  for (const batch of manifest.batches) {
    for (const record of readRunFileSync<StoredShard>(join(dir, manifest.files[role(batch.batch)]))) {
      const shard = { ...record, firstDoc: offset + batch.firstOrdinal + record.firstDoc, warnings: emptyWarnings() };
      if (record.sets !== undefined) shard.sets = join(dir, manifest.files[record.sets]);
      shards.push(shard as unknown as S);
    }
  }
  return shards;
}

/** The stored edges of an index: pairs of its ordinals a < b sorted, verified at `threshold`. */
interface StoredEdges {
  threshold: number;
  a: Uint32Array;
  b: Uint32Array;
  similarity: Float64Array;
}

/** Writes the edges between documents [from, to) of the run (the index's documents from `from` on), found at `threshold`. */
export async function saveEdges(update: IndexUpdate, edges: EdgeList, from: number, to: number, threshold: number): Promise<void> {
  const inside = edgeOrder(edges, to).filter((k) => edges.a(k) >= from && edges.b(k) < to);
  const record: StoredEdges = {
    threshold,
    a: Uint32Array.from(inside, (k) => edges.a(k) - from),
    b: Uint32Array.from(inside, (k) => edges.b(k) - from),
    similarity: Float64Array.from(inside, (k) => edges.similarity(k)),
  };
  await writeRunFile(await update.file("edges", "edges.zst"), [record]);
}

/**
 * The edges of the indices (each at `offset` in the run's order) that can answer for a run at
 * `threshold`: those stored at a threshold no higher.
 */
export function loadKnownEdges(indices: readonly { dir: string; manifest: IndexManifest; offset: number }[], threshold: number): KnownEdges {
  const ranges: KnownEdges["ranges"] = [];
  const parts: StoredEdges[] = [];
  for (const { dir, manifest, offset } of indices) {
    if (manifest.files.edges === undefined) continue;
    const [stored] = readRunFileSync<StoredEdges>(join(dir, manifest.files.edges));
    if (stored.threshold > threshold) continue;
    ranges.push({ from: offset, to: offset + manifest.documents });
    parts.push({ ...stored, a: stored.a.map((x) => x + offset), b: stored.b.map((x) => x + offset) });
  }
  const n = parts.reduce((m, p) => m + p.a.length, 0);
  const known: KnownEdges = { ranges, a: new Uint32Array(n), b: new Uint32Array(n), similarity: new Float64Array(n) };
  let at = 0;
  for (const p of parts) {
    known.a.set(p.a, at);
    known.b.set(p.b, at);
    known.similarity.set(p.similarity, at);
    at += p.a.length;
  }
  return known;
}

/** The reader options every set method's features depend on, by command-line name (SetMethodSpec.indexOptions). */
export function readerIndexOptions(f: FeatureOptions): Record<string, unknown> {
  return { "--column": f.column, "--normalize": f.normalize, "--lowercase": f.lowercase, "--keep-numbers": f.keepNumbers, ...partitionIndexOption(f) };
}
