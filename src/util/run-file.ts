import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import type * as Msgpackr from "msgpackr";
import type * as ZstdNapi from "zstd-napi";
import type * as ZstdBinding from "zstd-napi/binding.js";
import { openAtomicSync, writeAtomic, type AtomicFileSync } from "./atomic.js";
import { VertdupError } from "../core/errors.js";
import { requireCjs } from "./require-cjs.js";
import { WORKDIR_ADVICE } from "./json-file.js";

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
const zstdBinding = () => requireCjs("zstd-napi/binding.js") as typeof ZstdBinding;

// One compression context per level and thread, its parameters set once.
const contexts = new Map<number, ZstdBinding.CCtx>();

/**
 * zstd of `data` at `level`, as zstd-napi's `compress` makes it, returned in place in its
 * output buffer rather than copied out (the caller writes it and drops it).
 */
function compressBytes(data: Uint8Array, level: number): Buffer {
  const binding = zstdBinding();
  let cctx = contexts.get(level);
  if (cctx === undefined) {
    cctx = new binding.CCtx();
    cctx.setParameter(binding.CParameter.compressionLevel, level);
    contexts.set(level, cctx);
  }
  const out = Buffer.allocUnsafe(binding.compressBound(data.length));
  return out.subarray(0, cctx.compress2(out, data));
}

/** Packs and compresses records (whole-file, for the bounded output of one shard). */
export function encodeRecords(records: Iterable<unknown>, level = 3): Buffer {
  const packr = new (msgpackr().Packr)(OPTIONS);
  const parts: Buffer[] = [];
  // The packer's buffer is reused by its next pack: one record is compressed from it, more are copied out.
  for (const r of records) {
    if (parts.length === 1) parts[0] = Buffer.from(parts[0]);
    parts.push(parts.length === 0 ? packr.pack(r) : Buffer.from(packr.pack(r)));
  }
  return compressBytes(parts.length === 1 ? parts[0] : Buffer.concat(parts), level);
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

/**
 * decodeRecords of the bytes of the run file `path`: a file cut short or corrupted (zstd or
 * msgpackr cannot read it) is refused naming the file and saying what to do, not a trace.
 */
function decodeRecordsOf<T>(path: string, bytes: Uint8Array): T[] {
  try {
    return decodeRecords<T>(bytes);
  } catch (err) {
    if (err instanceof VertdupError) throw err;
    throw new VertdupError(`${path}: not a readable run file, it is truncated or corrupted (${err instanceof Error ? err.message : String(err)}): ${WORKDIR_ADVICE}`);
  }
}

export function readRunFileSync<T>(path: string): T[] {
  const frames = openRunFrames(path);
  try {
    if (!frames.framed) return decodeRecordsOf<T>(path, readFileSync(path));
    const records: T[] = [];
    for (let i = 0; i < frames.count; i++) for (const r of frames.read<T>(i)) records.push(r);
    return records;
  } finally {
    frames.close();
  }
}

/*
 * Framed run files: several frames, each encodeRecords' output (its own zstd frame and
 * msgpackr structures), then an index of their byte offsets, so that a reader can decompress
 * one frame without the others (a hash range of a shard's df table, the vocabulary's header
 * without its millions of df = 1 terms). The index is a zstd skippable frame, so the file is
 * still one zstd stream: magic, payload size, the n + 1 frame offsets (float64 LE), n
 * (uint32 LE) and TAG. A file without it is a plain run file: one frame.
 */
const SKIPPABLE_MAGIC = 0x184d2a5e;
/** "VDFR" (vertdup frames) as uint32 LE: ends every framed run file. */
const FRAMES_TAG = 0x52464456;

/** The index after frames at `offsets` (n + 1 byte offsets: frame i is [offsets[i], offsets[i + 1])). */
function frameIndex(offsets: readonly number[]): Buffer {
  const n = offsets.length - 1;
  const payload = 8 * (n + 1) + 8;
  const out = Buffer.alloc(8 + payload);
  out.writeUInt32LE(SKIPPABLE_MAGIC, 0);
  out.writeUInt32LE(payload, 4);
  offsets.forEach((o, i) => out.writeDoubleLE(o, 8 + 8 * i));
  out.writeUInt32LE(n, 8 + 8 * (n + 1));
  out.writeUInt32LE(FRAMES_TAG, 12 + 8 * (n + 1));
  return out;
}

/** A framed run file in memory, in the parts written one after another: each element of `frames` is one frame's records. */
export function encodeFrameParts(frames: Iterable<Iterable<unknown>>, level = 3): Buffer[] {
  const parts: Buffer[] = [];
  const offsets = [0];
  for (const records of frames) {
    const bytes = encodeRecords(records, level);
    parts.push(bytes);
    offsets.push(offsets[offsets.length - 1] + bytes.length);
  }
  parts.push(frameIndex(offsets));
  return parts;
}

/** A framed run file made whole in memory (encodeFrameParts joined). */
export function encodeFrames(frames: Iterable<Iterable<unknown>>, level = 3): Buffer {
  return Buffer.concat(encodeFrameParts(frames, level));
}

/** A framed run file written frame by frame (atomically: in place only at `commit`). */
export class FrameWriter {
  private readonly file: AtomicFileSync;
  private readonly offsets = [0];

  constructor(
    path: string,
    private readonly level = 3,
  ) {
    this.file = openAtomicSync(path);
  }

  /** Appends one frame of records. */
  frame(records: Iterable<unknown>): void {
    this.file.write(encodeRecords(records, this.level));
    this.offsets.push(this.file.size);
  }

  commit(): void {
    this.file.write(frameIndex(this.offsets));
    this.file.commit();
  }

  abort(): void {
    this.file.abort();
  }
}

/** An open run file read frame by frame; a plain run file is one frame. */
export interface RunFrames {
  /** The file has a frame index (else it is one plain frame). */
  framed: boolean;
  count: number;
  /** Compressed bytes of frame i. */
  bytes(i: number): number;
  read<T>(i: number): T[];
  close(): void;
}

/** Opens a run file for reading by frames: only the index is read now. */
export function openRunFrames(path: string): RunFrames {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const at = (position: number, length: number) => {
      const buffer = Buffer.allocUnsafe(length);
      for (let done = 0; done < length; ) {
        const n = readSync(fd, buffer, done, length - done, position + done);
        if (n === 0) throw new VertdupError(`${path}: ends at byte ${position + done}, inside a frame of the run file (truncated?)`);
        done += n;
      }
      return buffer;
    };
    let offsets = [0, size];
    let framed = false;
    if (size >= 24) {
      const tail = at(size - 8, 8);
      const n = tail.readUInt32LE(0);
      const length = 8 + 8 * (n + 1) + 8;
      // The tag, the skippable frame's header and the offsets must all agree: a plain run
      // file whose last bytes happen to hold the tag stays a plain run file.
      if (tail.readUInt32LE(4) === FRAMES_TAG && length <= size) {
        const index = at(size - length, length);
        const found = Array.from({ length: n + 1 }, (_, i) => index.readDoubleLE(8 + 8 * i));
        if (index.readUInt32LE(0) === SKIPPABLE_MAGIC && index.readUInt32LE(4) === length - 8 && found[0] === 0 && found[n] === size - length && found.every((o, i) => i === 0 || o >= found[i - 1])) {
          offsets = found;
          framed = true;
        }
      }
    }
    return {
      framed,
      count: offsets.length - 1,
      bytes: (i) => offsets[i + 1] - offsets[i],
      read: <T>(i: number) => decodeRecordsOf<T>(path, at(offsets[i], offsets[i + 1] - offsets[i])),
      close: () => closeSync(fd),
    };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}
