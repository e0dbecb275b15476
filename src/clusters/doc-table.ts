import type { ShardDocs } from "../features/count-shard.js";
import { readRunFileSync } from "../util/run-file.js";
import { shardFile } from "../workdir/layout.js";
import { concatU32 } from "../util/typed-arrays.js";

/** Token counts of all documents in corpus order, from a prepared work directory's shards. */
export function loadDocTokens(workdir: string, shards: number): Uint32Array {
  const parts: Uint32Array[] = [];
  for (let i = 0; i < shards; i++) parts.push(readRunFileSync<ShardDocs>(shardFile(workdir, i, "docs"))[0].tokens);
  return concatU32(parts);
}

/** The partition values (`--partition-attr`) of each shard's documents, in corpus order (undefined: read without it). */
export function loadDocParts(workdir: string, shards: number): (string[] | undefined)[] {
  return Array.from({ length: shards }, (_, i) => readRunFileSync<ShardDocs>(shardFile(workdir, i, "docs"))[0].parts);
}
