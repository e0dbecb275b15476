import type { ShardDocs } from "../features/count-shard.js";
import { readRunFileSync } from "../runs/run-file.js";
import { shardFile } from "../coordinator/workdir.js";

/** Document ids in corpus order, gathered from the shards' doc files. */
export function loadDocIds(workdir: string, shards: number): string[] {
  const ids: string[] = [];
  for (let i = 0; i < shards; i++) {
    const [docs] = readRunFileSync<ShardDocs>(shardFile(workdir, i, "docs"));
    for (const id of docs.ids) ids.push(id);
  }
  return ids;
}
