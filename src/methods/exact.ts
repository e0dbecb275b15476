import { stringToken } from "../corpus/vertical.js";
import { createHash } from "node:crypto";
import { normalizeToken, type NormalizeOptions } from "../features/normalize.js";
import { PairList } from "./pair-list.js";
import { scanChunk, type ChunkTask, type ShardBase } from "./shard-scan.js";

const DIGEST_BYTES = 32;

export interface ExactShard extends ShardBase {
  /** SHA-256 of each document's normalised token stream, 32 bytes per document. */
  digests: Uint8Array;
  /** 1 for a document without any kept token (it has no digest and no pair). */
  empty: Uint8Array;
}

/**
 * SHA-256 of the kept, normalised tokens joined by newlines (a token line never holds
 * one), or null when no token is kept.
 */
export function streamDigest(tokens: readonly string[], opts: NormalizeOptions): Buffer | null {
  const kept: string[] = [];
  for (const t of tokens) {
    const norm = normalizeToken(t, opts);
    if (norm !== null) kept.push(norm);
  }
  return kept.length === 0 ? null : createHash("sha256").update(kept.join("\n")).digest();
}

/** Chunk task: digests of the chunk's documents. */
export function exactShard(task: ChunkTask): ExactShard {
  const digests = new Uint8Array(task.chunk.docCount * DIGEST_BYTES);
  const empty = new Uint8Array(task.chunk.docCount);
  let i = 0;
  const base = scanChunk(task.chunk, task.options, stringToken, (doc) => {
    const d = streamDigest(doc.tokens, task.options);
    if (d === null) empty[i] = 1;
    else digests.set(d, i * DIGEST_BYTES);
    i++;
  });
  return { ...base, digests, empty };
}

/** Every pair of documents with the same digest (similarity 1), in one pass over the digests. */
export function exactPairs(shards: readonly ExactShard[], documents: number): PairList {
  const groups = new Map<string, number[]>();
  for (const s of shards) {
    const bytes = Buffer.from(s.digests.buffer, s.digests.byteOffset, s.digests.byteLength);
    for (let i = 0; i < s.empty.length; i++) {
      if (s.empty[i]) continue;
      const key = bytes.toString("latin1", i * DIGEST_BYTES, (i + 1) * DIGEST_BYTES);
      const group = groups.get(key);
      if (group === undefined) groups.set(key, [s.firstDoc + i]);
      else group.push(s.firstDoc + i);
    }
  }
  const pairs = new PairList(documents);
  for (const group of groups.values()) {
    for (let p = 0; p < group.length; p++) for (let q = p + 1; q < group.length; q++) pairs.add(group[p], group[q], 1);
  }
  return pairs;
}
