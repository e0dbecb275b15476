import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import { BUCKETS, OCC_WORDS, type ChunkOccurrences } from "./occurrences.js";
import type { BucketPart } from "./repeats.js";

/** Where a bucket-repeats task finds its bucket: shared memory, or a run file on disk. */
export type BucketSource = { parts: BucketPart[] } | { path: string };

/**
 * What the coordinator keeps between the n-gram pass and the output pass: each chunk's
 * bytes and its n-gram occurrences by bucket. Everything stays in memory until it holds more
 * than `limit` bytes; then it all goes to disk and later chunks follow it there (external
 * mode): one append-only run file per bucket (records `chunk, count, count × (lo, hi, unit)`,
 * chunks in corpus order) and one spool file of chunk bytes (which also makes standard
 * input readable twice). Outputs do not depend on the mode.
 */
export class CorpusStore {
  private readonly memChunks: Uint8Array[] = [];
  private readonly memOcc: { chunk: number; occ: Uint32Array; bucketStart: Uint32Array }[] = [];
  private held = 0;
  private spool = -1;
  private spoolEnd = 0;
  private readonly spoolAt: number[] = [];
  private readonly spoolLength: number[] = [];
  private bucketFds: number[] = [];

  constructor(
    private readonly dir: string,
    private readonly limit: number,
  ) {}

  get external(): boolean {
    return this.spool !== -1;
  }

  /** Adds the next chunk (chunks arrive in corpus order). */
  add(chunk: number, bytes: Uint8Array, occ: ChunkOccurrences): void {
    if (this.external) {
      this.spoolChunk(bytes);
      this.appendRuns(chunk, occ.occ, occ.bucketStart);
      return;
    }
    this.memChunks.push(bytes);
    this.memOcc.push({ chunk, occ: occ.occ, bucketStart: occ.bucketStart });
    this.held += bytes.byteLength + occ.occ.byteLength;
    if (this.held > this.limit) this.spill();
  }

  private spill(): void {
    this.spool = openSync(join(this.dir, "chunks.spool"), "w+");
    this.bucketFds = Array.from({ length: BUCKETS }, (_, b) => openSync(this.bucketPath(b), "w"));
    for (const bytes of this.memChunks.splice(0)) this.spoolChunk(bytes);
    for (const m of this.memOcc.splice(0)) this.appendRuns(m.chunk, m.occ, m.bucketStart);
    this.held = 0;
  }

  private bucketPath(b: number): string {
    return join(this.dir, `bucket-${b}.run`);
  }

  private spoolChunk(bytes: Uint8Array): void {
    writeSync(this.spool, bytes, 0, bytes.byteLength, this.spoolEnd);
    this.spoolAt.push(this.spoolEnd);
    this.spoolLength.push(bytes.byteLength);
    this.spoolEnd += bytes.byteLength;
  }

  private appendRuns(chunk: number, occ: Uint32Array, bucketStart: Uint32Array): void {
    for (let b = 0; b < BUCKETS; b++) {
      const count = bucketStart[b + 1] - bucketStart[b];
      if (count === 0) continue;
      const header = Uint32Array.of(chunk, count);
      writeSync(this.bucketFds[b], header);
      writeSync(this.bucketFds[b], occ.subarray(bucketStart[b] * OCC_WORDS, bucketStart[b + 1] * OCC_WORDS));
    }
  }

  /** Closes the run files: call once all chunks are added. */
  finishRuns(): void {
    for (const fd of this.bucketFds.splice(0)) closeSync(fd);
  }

  bucket(b: number): BucketSource {
    if (this.external) return { path: this.bucketPath(b) };
    return {
      parts: this.memOcc
        .filter((m) => m.bucketStart[b + 1] > m.bucketStart[b])
        .map((m) => ({ chunk: m.chunk, occ: m.occ.subarray(m.bucketStart[b] * OCC_WORDS, m.bucketStart[b + 1] * OCC_WORDS) })),
    };
  }

  /** The bytes of a chunk, from memory or from the spool. */
  chunkBytes(chunk: number): Uint8Array {
    if (!this.external) return this.memChunks[chunk];
    const buf = Buffer.allocUnsafeSlow(this.spoolLength[chunk]);
    readSync(this.spool, buf, 0, buf.length, this.spoolAt[chunk]);
    return buf;
  }

  /** Drops the occurrences once the repeats are known (the chunk bytes stay). */
  dropOccurrences(): void {
    this.memOcc.length = 0;
  }

  close(): void {
    this.finishRuns();
    if (this.spool !== -1) closeSync(this.spool);
  }
}

/** Reads a bucket run file back into per-chunk parts. */
export function readBucketRuns(data: Uint32Array): BucketPart[] {
  const parts: BucketPart[] = [];
  for (let i = 0; i < data.length; ) {
    const chunk = data[i];
    const count = data[i + 1];
    parts.push({ chunk, occ: data.subarray(i + 2, i + 2 + count * OCC_WORDS) });
    i += 2 + count * OCC_WORDS;
  }
  return parts;
}
