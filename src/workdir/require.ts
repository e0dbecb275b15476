import { existsSync } from "node:fs";
import { VertdupError } from "../core/errors.js";
import { markerFile, readMarker, shardName } from "./layout.js";

/** The markers of tasks `${prefix}-NNNNNN` for 0..count-1, or an error naming what is missing. */
export async function requireShardMarkers<T>(workdir: string, prefix: string, count: number): Promise<T[]> {
  const missing: number[] = [];
  for (let i = 0; i < count; i++) if (!existsSync(markerFile(workdir, `${prefix}-${shardName(i)}`))) missing.push(i);
  if (missing.length > 0) {
    throw new VertdupError(`${workdir}: ${missing.length} of ${count} ${prefix} tasks are not done (first: shard ${missing[0]}); run them first`);
  }
  return Promise.all(Array.from({ length: count }, async (_, i) => (await readMarker<T>(workdir, `${prefix}-${shardName(i)}`)) as T));
}

export async function requireMarker<T>(workdir: string, task: string, what: string): Promise<T> {
  const m = await readMarker<T>(workdir, task);
  if (m === undefined) throw new VertdupError(`${workdir}: ${what} is not done yet; run it first`);
  return m;
}
