import { readFileSync } from "node:fs";
import type * as Msgpackr from "msgpackr";
import type * as ZstdNapi from "zstd-napi";
import { writeAtomic } from "../util/atomic.js";
import { requireCjs } from "../util/require-cjs.js";

/**
 * Run files: a zstd-compressed sequence of msgpackr records. Typed arrays round-trip as
 * such (`moreTypes`), and record structures are declared inline, so each file is
 * self-describing. Files are written atomically, one shard's bounded output at a time.
 */
const OPTIONS = { useRecords: true, moreTypes: true } as const;
/** Readers also take plain maps as objects. */
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
  const packed = zstd().decompress(bytes);
  // No records (a shard whose documents are all empty has an empty run): msgpackr fails on no bytes.
  return packed.length === 0 ? [] : (new (msgpackr().Unpackr)(READ_OPTIONS).unpackMultiple(packed) as T[]);
}

export function readRunFileSync<T>(path: string): T[] {
  return decodeRecords<T>(readFileSync(path));
}
