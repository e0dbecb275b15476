import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import type { BucketSource } from "./bucket-task.js";
import { BUCKET_BITS, BUCKETS, OCC_WORDS, type ChunkOccurrences } from "./occurrences.js";
import { RecordWriter, type RecordPart } from "./record-file.js";
import type { Stored } from "../corpus/stored.js";
import { writeFullySync } from "../util/atomic.js";

/**
 * What the coordinator keeps between the n-gram pass and the output pass: each chunk's
 * layout and n-gram occurrences by bucket, and the bytes of chunks that cannot be read again
 * from their input (compressed files, standard input; a plain file is simply read again).
 * Everything stays in memory until it holds more than `limit` bytes; then it all goes to disk
 * and later chunks follow it there (external mode): one append-only run file per bucket and
 * one spool file of layouts and chunk bytes. Outputs do not depend on the mode.
 */
export class CorpusStore {
  private readonly memOcc: { chunk: number; occ: Uint32Array; bucketStart: Uint32Array }[] = [];
  private readonly bytes: Stored[] = [];
  private readonly layouts: Stored[] = [];
  private readonly bucketCounts = new Array<number>(BUCKETS).fill(0);
  private held = 0;
  private spool = -1;
  private spoolEnd = 0;
  private runs: RecordWriter[] = [];

  constructor(
    private readonly dir: string,
    private readonly limit: number,
  ) {}

  get external(): boolean {
    return this.spool !== -1;
  }

  private get spoolPath(): string {
    return join(this.dir, "chunks.spool");
  }

  private bucketPath(b: number): string {
    return join(this.dir, `bucket-${b}.run`);
  }

  /**
   * Adds the next chunk (chunks arrive in corpus order): its bytes are either where they
   * can be read again or in memory (then kept or spooled here). Without `occurrences`, only
   * what the output pass needs (a process whose repeats were found by another).
   */
  add(chunk: number, bytes: Stored, occ: ChunkOccurrences, occurrences = true): void {
    const layout = new Uint8Array(occ.layout.buffer, occ.layout.byteOffset, occ.layout.byteLength);
    if (occurrences) for (let b = 0; b < BUCKETS; b++) this.bucketCounts[b] += occ.bucketStart[b + 1] - occ.bucketStart[b];
    if (this.external) {
      this.bytes[chunk] = this.toSpool(bytes);
      this.layouts[chunk] = this.toSpool(layout);
      if (occurrences) this.appendRuns(chunk, occ.occ, occ.bucketStart);
      return;
    }
    this.bytes[chunk] = bytes;
    this.layouts[chunk] = layout;
    if (occurrences) this.memOcc.push({ chunk, occ: occ.occ, bucketStart: occ.bucketStart });
    this.held += (bytes instanceof Uint8Array ? bytes.byteLength : 0) + layout.byteLength + (occurrences ? occ.occ.byteLength : 0);
    if (this.held > this.limit) this.spill();
  }

  private spill(): void {
    this.spool = openSync(this.spoolPath, "w+");
    this.runs = Array.from({ length: BUCKETS }, (_, b) => new RecordWriter(this.bucketPath(b)));
    for (let c = 0; c < this.bytes.length; c++) {
      this.bytes[c] = this.toSpool(this.bytes[c]);
      this.layouts[c] = this.toSpool(this.layouts[c]);
    }
    for (const m of this.memOcc.splice(0)) this.appendRuns(m.chunk, m.occ, m.bucketStart);
    this.held = 0;
  }

  private toSpool(s: Stored): Stored {
    if (!(s instanceof Uint8Array)) return s;
    writeFullySync(this.spool, this.spoolPath, s, this.spoolEnd);
    const where = { path: this.spoolPath, offset: this.spoolEnd, length: s.byteLength };
    this.spoolEnd += s.byteLength;
    return where;
  }

  private appendRuns(chunk: number, occ: Uint32Array, bucketStart: Uint32Array): void {
    for (let b = 0; b < BUCKETS; b++) {
      if (bucketStart[b + 1] > bucketStart[b]) this.runs[b].add(chunk, occ.subarray(bucketStart[b] * OCC_WORDS, bucketStart[b + 1] * OCC_WORDS));
    }
  }

  /** Closes the run files: call once all chunks are added. */
  finishRuns(): void {
    for (const w of this.runs.splice(0)) w.close();
  }

  /** Every bucket's occurrences, for the repeats pass. */
  buckets(): BucketSource[] {
    return Array.from({ length: BUCKETS }, (_, b): BucketSource => {
      const count = this.bucketCounts[b];
      const range = { prefix: b, bits: BUCKET_BITS };
      if (this.external) return { path: this.bucketPath(b), count, level: 0, range };
      const parts: RecordPart[] = [];
      for (const m of this.memOcc) {
        if (m.bucketStart[b + 1] > m.bucketStart[b]) parts.push({ chunk: m.chunk, data: m.occ.subarray(m.bucketStart[b] * OCC_WORDS, m.bucketStart[b + 1] * OCC_WORDS) });
      }
      return { parts, count, range };
    });
  }

  /** Drops the occurrences once the repeats are known (layouts and chunk bytes stay). */
  dropOccurrences(): void {
    this.memOcc.length = 0;
  }

  /** The bytes and layout of a chunk for the output pass; forgotten here once handed out. */
  take(chunk: number): { bytes: Stored; layout: Stored } {
    const taken = { bytes: this.bytes[chunk], layout: this.layouts[chunk] };
    this.bytes[chunk] = this.layouts[chunk] = new Uint8Array(0);
    return taken;
  }

  close(): void {
    this.finishRuns();
    if (this.spool !== -1) closeSync(this.spool);
  }
}
