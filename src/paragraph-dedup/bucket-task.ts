import { readFileSync } from "node:fs";
import { readBucketRuns, type BucketSource } from "./corpus-store.js";
import { findRepeats, type ChunkRepeats } from "./repeats.js";

/** The repeats task of one bucket, whichever way the coordinator kept its occurrences. */
export function bucketRepeats(source: BucketSource): ChunkRepeats[] {
  if ("parts" in source) return findRepeats(source.parts);
  const file = readFileSync(source.path);
  // A Uint32Array view needs a 4-byte aligned offset; copy in the rare case it is not.
  const bytes = file.byteOffset % 4 === 0 ? file : Uint8Array.prototype.slice.call(file);
  return findRepeats(readBucketRuns(new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)));
}
