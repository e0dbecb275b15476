import type { NormalizeOptions } from "../../core/options.js";
import { stringToken } from "../../corpus/vertical.js";
import { hash } from "node:crypto";
import { normalizeToken } from "../../features/normalize.js";
import { EdgeList, type DuplicateGraph } from "../../clusters/duplicate-graph.js";
import { featuredDocs, firstOfByKeys } from "../sets/first-of.js";
import { scanShard, type ChunkTask, type ShardBase } from "../sets/shard-scan.js";

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
  return kept.length === 0 ? null : hash("sha256", kept.join("\n"), "buffer");
}

/** Chunk task: digests of the chunk's documents. */
export function exactShard(task: ChunkTask): ExactShard {
  const digests = new Uint8Array(task.chunk.docCount * DIGEST_BYTES);
  const empty = new Uint8Array(task.chunk.docCount);
  let i = 0;
  const base = scanShard(task.chunk, task.options, stringToken, (doc) => {
    const d = streamDigest(doc.tokens, task.options);
    if (d === null) empty[i] = 1;
    else digests.set(d, i * DIGEST_BYTES);
    i++;
  });
  return { ...base, digests, empty };
}

/**
 * Documents with the same digest form one identity group (similarity 1); the method has no
 * other edges. Groups are found by sorting the digests' first 64 bits, never by a Map.
 */
export function exactGraph(shards: readonly ExactShard[], documents: number, part?: Uint32Array): DuplicateGraph {
  const digests = new Uint8Array(documents * DIGEST_BYTES);
  for (const s of shards) digests.set(s.digests, s.firstDoc * DIGEST_BYTES);
  const docs = featuredDocs(shards);
  const view = new DataView(digests.buffer);
  const hi = Uint32Array.from(docs, (d) => view.getUint32(d * DIGEST_BYTES));
  const lo = Uint32Array.from(docs, (d) => view.getUint32(d * DIGEST_BYTES + 4));
  const same = (a: number, b: number) => {
    for (let k = 0; k < DIGEST_BYTES; k++) if (digests[a * DIGEST_BYTES + k] !== digests[b * DIGEST_BYTES + k]) return false;
    return true;
  };
  return { documents, firstOf: firstOfByKeys(documents, docs, hi, lo, same, part), edges: new EdgeList() };
}
