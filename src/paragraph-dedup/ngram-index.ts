import { closeSync, openSync, readSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { decodeRecords, encodeRecords } from "../runs/run-file.js";
import { readIndex, requireCompatible, type IndexManifest, type IndexUpdate } from "../supplement/index-store.js";
import { openAtomic, writeAtomic, type AtomicStream } from "../util/atomic.js";
import { VertdupError } from "../util/errors.js";
import type { ParagraphOptions } from "./options.js";

/**
 * The saved index of `vertdup paragraphs` (src/supplement/index-store.ts holds the manifest):
 * the set of n-gram keys of every occurrence in its corpora, which is all a later batch needs,
 * since an occurrence is repeated when its key occurred anywhere earlier ("first occurrence
 * wins"). Each run (or update) adds one keys file: per key range — a bucket table of the run
 * that wrote it — a segment of sorted unique keys in compressed frames (run-file.ts records),
 * and a ranges file saying where each range's segment is. A batch's bucket table then checks
 * membership reading only the segments it overlaps, one frame at a time, never a whole index.
 */
export const PARAGRAPHS_METHOD = "paragraphs";

/** The options that decide which n-gram keys a corpus has (keyed by CLI name, for requireCompatible). */
export function keyOptions(o: ParagraphOptions): Record<string, unknown> {
  return { "--ngram": o.ngram, "--boundary": o.boundary, "--doc-tag": o.docTag };
}

/** Keys whose high lane starts with the `bits` bits of `prefix` (a bucket, or a part of a split one). */
export interface KeyRange {
  prefix: number;
  bits: number;
}

export function inRange(hi: number, r: KeyRange): boolean {
  return hi >>> (32 - r.bits) === r.prefix;
}

/** Whether two ranges share keys: one's prefix starts the other's. */
export function overlaps(a: KeyRange, b: KeyRange): boolean {
  return a.bits <= b.bits ? b.prefix >>> (b.bits - a.bits) === a.prefix : overlaps(b, a);
}

/** A run of an index's keys: a byte range of a keys file, and the key range they lie in. */
export interface KeySegment {
  path: string;
  offset: number;
  length: number;
  range: KeyRange;
}

/** Roles of the two files each run or update adds: its keys, and where each range's are. */
const ROLE = /^ngrams g(\d+)$/;
export const keysRole = (generation: number) => `ngrams g${generation}`;
export const rangesRole = (generation: number) => `ngram ranges g${generation}`;
export const KEYS_FILE = "ngrams.keys";
export const RANGES_FILE = "ngrams.ranges.json";

interface RangeEntry extends KeyRange {
  offset: number;
  length: number;
}

/** The key segments an index lists, over all its generations. */
export async function keySegments(dir: string, manifest: IndexManifest): Promise<KeySegment[]> {
  const segments: KeySegment[] = [];
  for (const [role, path] of Object.entries(manifest.files)) {
    const m = ROLE.exec(role);
    if (m === null) continue;
    const ranges = JSON.parse(await readFile(join(dir, manifest.files[rangesRole(Number(m[1]))]), "utf8")) as RangeEntry[];
    for (const { prefix, bits, offset, length } of ranges) segments.push({ path: join(dir, path), offset, length, range: { prefix, bits } });
  }
  return segments;
}

/** Keys per block: one compressed frame (hi as deltas, which zstd packs well), read one at a time. */
const BLOCK_KEYS = 1 << 16;
const FRAME_HEADER = 4;

interface KeyBlock {
  hiDelta: Uint32Array;
  lo: Uint32Array;
}

/** A segment's bytes for sorted unique keys (`lo, hi` pairs, by hi then lo): frames, each after its length. */
export function encodeKeys(sorted: Uint32Array): Uint8Array {
  const frames: Uint8Array[] = [];
  for (let start = 0; start < sorted.length; start += 2 * BLOCK_KEYS) {
    const pairs = sorted.subarray(start, Math.min(sorted.length, start + 2 * BLOCK_KEYS));
    const n = pairs.length / 2;
    const block: KeyBlock = { hiDelta: new Uint32Array(n), lo: new Uint32Array(n) };
    for (let i = 0, prev = 0; i < n; i++) {
      block.lo[i] = pairs[2 * i];
      block.hiDelta[i] = (pairs[2 * i + 1] - prev) >>> 0;
      prev = pairs[2 * i + 1];
    }
    const frame = encodeRecords([block]);
    const header = Buffer.alloc(FRAME_HEADER);
    header.writeUInt32LE(frame.length);
    frames.push(header, frame);
  }
  // Not Buffer.concat, which may return a slice of Node's shared pool: the result is moved between threads.
  const out = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  frames.reduce((at, f) => (out.set(f, at), at + f.length), 0);
  return out;
}

/** A block of sorted keys as read: `lo[i]`, `hi[i]`. */
export interface Keys {
  lo: Uint32Array;
  hi: Uint32Array;
}

/** The keys of a segment, one block at a time: a frame in memory, never the segment. */
export function* readSegment(s: KeySegment): Generator<Keys> {
  const fd = openSync(s.path, "r");
  try {
    const header = Buffer.alloc(FRAME_HEADER);
    for (let at = s.offset; at < s.offset + s.length; ) {
      readFully(fd, header, at, s.path);
      const frame = Buffer.allocUnsafe(header.readUInt32LE());
      readFully(fd, frame, at + FRAME_HEADER, s.path);
      at += FRAME_HEADER + frame.length;
      const [block] = decodeRecords<KeyBlock>(frame);
      // The deltas become the high lanes in place.
      const hi = block.hiDelta;
      for (let i = 0, h = 0; i < hi.length; i++) hi[i] = h = (h + hi[i]) >>> 0;
      yield { lo: block.lo, hi };
    }
  } finally {
    closeSync(fd);
  }
}

function readFully(fd: number, buf: Buffer, position: number, path: string): void {
  for (let done = 0; done < buf.length; ) {
    const got = readSync(fd, buf, done, buf.length - done, position + done);
    if (got === 0) throw new VertdupError(`${path}: index file shorter than its ranges say (damaged index)`);
    done += got;
  }
}

/**
 * Writes one run's keys into an index update: the buckets' segments appended in the order
 * given to one keys file, and their ranges beside it.
 */
export class KeysWriter {
  private readonly ranges: RangeEntry[] = [];
  private end = 0;

  private constructor(
    private readonly file: AtomicStream,
    private readonly rangesPath: string,
  ) {}

  /** A writer of the keys the update's generation adds (`generation`: the index's before the update). */
  static async open(update: IndexUpdate, generation: number): Promise<KeysWriter> {
    const keys = openAtomic(await update.file(keysRole(generation), KEYS_FILE));
    return new KeysWriter(keys, await update.file(rangesRole(generation), RANGES_FILE));
  }

  async add(range: KeyRange, segment: Uint8Array): Promise<void> {
    this.ranges.push({ ...range, offset: this.end, length: segment.length });
    this.end += segment.length;
    await this.file.write(segment);
  }

  /** Puts both files in place (durably): call before the update commits. */
  async finish(): Promise<void> {
    await this.file.commit();
    await writeAtomic(this.rangesPath, `${JSON.stringify(this.ranges)}\n`);
  }

  async abort(): Promise<void> {
    await this.file.abort();
  }
}

export interface SavedIndex {
  dir: string;
  manifest: IndexManifest;
  segments: KeySegment[];
}

/**
 * The `--against` indices, each checked to be an index of `vertdup paragraphs` with the same
 * key options, and none the run's own work directory.
 */
export async function openIndices(dirs: readonly string[], options: ParagraphOptions): Promise<SavedIndex[]> {
  const indices: SavedIndex[] = [];
  for (const dir of dirs) {
    const manifest = await readIndex(dir);
    requireCompatible(dir, manifest, PARAGRAPHS_METHOD, keyOptions(options));
    indices.push({ dir, manifest, segments: await keySegments(dir, manifest) });
  }
  return indices;
}
