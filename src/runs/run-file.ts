import { createReadStream, readFileSync } from "node:fs";
import type * as Msgpackr from "msgpackr";
import { pipeline } from "node:stream/promises";
import type * as ZstdNapi from "zstd-napi";
import { drained, openAtomic, writeAtomic, type AtomicStream } from "../util/atomic.js";
import { requireCjs } from "../util/require-cjs.js";

/**
 * Run files: a zstd-compressed sequence of msgpackr records. Typed arrays round-trip as
 * such (`moreTypes`), and record structures are declared inline, so each file is
 * self-describing. Files are written atomically; readers stream them.
 */
const OPTIONS = { useRecords: true, moreTypes: true } as const;
/** Readers also take plain maps as objects (RunWriter writes maps, see there). */
const READ_OPTIONS = { ...OPTIONS, mapsAsObjects: true } as const;

// Loaded at first use: a small paragraphs run imports this module (its index) but writes no run file.
const msgpackr = () => requireCjs("msgpackr") as typeof Msgpackr;
const zstd = () => requireCjs("zstd-napi") as typeof ZstdNapi;

/** Packs and compresses records (whole-file, for the bounded output of one shard). */
export function encodeRecords(records: Iterable<unknown>, level = 3): Buffer {
  const packr = new (msgpackr().Packr)(OPTIONS);
  const parts: Buffer[] = [];
  for (const r of records) parts.push(Buffer.from(packr.pack(r)));
  return zstd().compress(Buffer.concat(parts), { compressionLevel: level });
}

export async function writeRunFile(path: string, records: Iterable<unknown>): Promise<void> {
  await writeAtomic(path, encodeRecords(records));
}

/** The records of bytes made by encodeRecords. */
export function decodeRecords<T>(bytes: Uint8Array): T[] {
  return new (msgpackr().Unpackr)(READ_OPTIONS).unpackMultiple(zstd().decompress(bytes)) as T[];
}

export function readRunFileSync<T>(path: string): T[] {
  return decodeRecords<T>(readFileSync(path));
}

/** Streams the records of a run file in order, holding one stream buffer at a time. */
export async function* readRunFile<T>(path: string): AsyncGenerator<T> {
  const source = createReadStream(path, { highWaterMark: 1 << 18 });
  const unpack = new (msgpackr().UnpackrStream)(READ_OPTIONS);
  source.pipe(new (zstd().DecompressStream)()).pipe(unpack);
  for await (const record of unpack) yield record as T;
}

/** Streams records into a run file under a temporary name; `close` renames it into place. */
export class RunWriter {
  // Plain maps, not records: a streaming Packr reusing record ids across long-lived writers
  // was seen to emit a record before its definition (intermediate merge runs unreadable).
  private readonly packr = new (msgpackr().Packr)({ ...OPTIONS, useRecords: false });
  private readonly file: AtomicStream;
  private readonly zstd = new (zstd().CompressStream)({ compressionLevel: 1 });
  private readonly done: Promise<void>;

  constructor(path: string) {
    this.file = openAtomic(path);
    this.done = pipeline(this.zstd, this.file.stream);
  }

  /** Writes one record; resolves when the stream can take more (back-pressure). */
  async write(record: unknown): Promise<void> {
    if (!this.zstd.write(Buffer.from(this.packr.pack(record)))) await drained(this.zstd);
  }

  async close(): Promise<void> {
    this.zstd.end();
    await this.done;
    await this.file.commit();
  }
}
