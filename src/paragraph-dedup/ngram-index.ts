import { closeSync, openSync, readSync } from "node:fs";
import { partitionIndexOption } from "../workdir/index-store.js";
import { join } from "node:path";
import { readIndex, requireCompatible, type IndexManifest, type IndexUpdate } from "../workdir/index-store.js";
import { openAtomic, writeAtomic, type AtomicStream } from "../util/atomic.js";
import { VertdupError } from "../core/errors.js";
import { decodeFrame, FRAME_HEADER_WORDS, frameBodyWords, frameWindow, markFrameKeys } from "./key-frames.js";
import type { ParagraphOptions } from "../core/paragraph-options.js";
import { readJsonFile } from "../util/json-file.js";

/**
 * The saved index of `vertdup paragraphs` (src/workdir/index-store.ts holds the manifest):
 * the set of n-gram keys of every occurrence in its corpora, which is all a later batch needs,
 * since an occurrence is repeated when its key occurred anywhere earlier ("first occurrence
 * wins"). Each run (or update) adds one keys file: per key range — a bucket table of the run
 * that wrote it — a segment of sorted unique keys in Elias–Fano frames (key-frames.ts), and a
 * ranges file saying where each range's segment is. A batch's bucket table then checks
 * membership reading only the segments it overlaps, one frame at a time, never a whole index.
 */
export const PARAGRAPHS_METHOD = "paragraphs";

/** The options that decide which n-gram keys a corpus has (keyed by CLI name, for requireCompatible). */
export function keyOptions(o: ParagraphOptions): Record<string, unknown> {
  return { "--ngram": o.ngram, "--boundary": o.boundary, "--doc-tag": o.docTag, "--normalize": o.normalize, ...partitionIndexOption(o) };
}

/** Keys whose high lane starts with the `bits` bits of `prefix` (a bucket, or a part of a split one). */
export interface KeyRange {
  prefix: number;
  bits: number;
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

/**
 * The keys files' format, in the ranges file beside each. Format 1 (vertdup 0.2.0: zstd
 * frames, a ranges file that is a bare list) is refused: its index must be built again.
 */
export const KEY_FORMAT = 2;

interface RangeEntry extends KeyRange {
  offset: number;
  length: number;
}

interface RangesFile {
  format: number;
  ranges: RangeEntry[];
}

async function readRanges(path: string): Promise<RangeEntry[]> {
  const file = await readJsonFile<RangesFile | RangeEntry[]>(path, "the index is damaged: build it again (vertdup paragraphs CORPUS -o OUTPUT -w DIR)");
  const format = Array.isArray(file) ? 1 : file.format;
  if (format !== KEY_FORMAT) {
    throw new VertdupError(`${path}: n-gram keys of key format ${String(format)}; this vertdup reads key format ${KEY_FORMAT}: build the index again (vertdup paragraphs CORPUS -o OUTPUT -w DIR)`);
  }
  return (file as RangesFile).ranges;
}

/** The key segments an index lists, over all its generations. */
export async function keySegments(dir: string, manifest: IndexManifest): Promise<KeySegment[]> {
  const segments: KeySegment[] = [];
  for (const [role, path] of Object.entries(manifest.files)) {
    const m = ROLE.exec(role);
    if (m === null) continue;
    for (const { prefix, bits, offset, length } of await readRanges(join(dir, manifest.files[rangesRole(Number(m[1]))]))) segments.push({ path: join(dir, path), offset, length, range: { prefix, bits } });
  }
  return segments;
}

/** Frames a thread reads into, one at a time. */
let frameBuffer = new Uint32Array(FRAME_HEADER_WORDS);

/**
 * The frames of a segment that `wanted` accepts by their header, in order: a frame in memory,
 * never the segment; each valid until the next. A frame not wanted is passed over without
 * reading more than its header.
 */
function* frames(s: KeySegment, wanted: (header: Uint32Array) => boolean = () => true): Generator<Uint32Array> {
  const fd = openSync(s.path, "r");
  try {
    const end = s.offset + s.length;
    for (let at = s.offset; at < end; ) {
      const header = frameBuffer.subarray(0, FRAME_HEADER_WORDS);
      readFully(fd, new Uint8Array(header.buffer, 0, 4 * FRAME_HEADER_WORDS), at, s.path);
      const words = FRAME_HEADER_WORDS + frameBodyWords(header);
      if (at + 4 * words > end) throw new VertdupError(`${s.path}: a frame of n-gram keys runs past its range's end at byte ${at} (damaged index)`);
      if (wanted(header)) {
        if (frameBuffer.length < words) {
          frameBuffer = new Uint32Array(Math.max(words, 2 * frameBuffer.length));
          frameBuffer.set(header);
        }
        readFully(fd, new Uint8Array(frameBuffer.buffer, 4 * FRAME_HEADER_WORDS, 4 * (words - FRAME_HEADER_WORDS)), at + 4 * FRAME_HEADER_WORDS, s.path);
        yield frameBuffer.subarray(0, words);
      }
      at += 4 * words;
    }
  } finally {
    closeSync(fd);
  }
}

/** The keys of a segment as sorted `lo, hi` pairs, one frame at a time. */
export function* readSegment(s: KeySegment): Generator<Uint32Array> {
  for (const frame of frames(s)) yield decodeFrame(frame);
}

/**
 * Sets `found[k]` for every key k of `sorted` (a bucket table's sorted unique `lo, hi` pairs)
 * that the segment holds: a merge of the two sorted sequences, reading only the frames that
 * span some of the table's keys.
 */
export function markKnown(s: KeySegment, sorted: Uint32Array, found: Uint8Array): void {
  let window: [number, number] = [0, 0];
  const spansSome = (header: Uint32Array) => {
    window = frameWindow(header, sorted);
    return window[0] < window[1];
  };
  for (const frame of frames(s, spansSome)) markFrameKeys(frame, sorted, window[0], window[1], found);
}

function readFully(fd: number, buf: Uint8Array, position: number, path: string): void {
  for (let done = 0; done < buf.length; ) {
    const got = readSync(fd, buf, done, buf.length - done, position + done);
    if (got === 0) throw new VertdupError(`${path}: index file shorter than its ranges say (damaged index)`);
    done += got;
  }
}

/**
 * Lists in `update` the two files a KeysWriter writes for the generation it adds
 * (`generation`: the index's before the update): also done by a process that commits keys
 * another one wrote. Their paths.
 */
export async function listKeys(update: IndexUpdate, generation: number): Promise<{ keys: string; ranges: string }> {
  return { keys: await update.file(keysRole(generation), KEYS_FILE), ranges: await update.file(rangesRole(generation), RANGES_FILE) };
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
    const { keys, ranges } = await listKeys(update, generation);
    return new KeysWriter(openAtomic(keys), ranges);
  }

  async add(range: KeyRange, segment: Uint8Array): Promise<void> {
    this.ranges.push({ ...range, offset: this.end, length: segment.length });
    this.end += segment.length;
    await this.file.write(segment);
  }

  /** Puts both files in place (durably): call before the update commits. */
  async finish(): Promise<void> {
    await this.file.commit();
    const file: RangesFile = { format: KEY_FORMAT, ranges: this.ranges };
    await writeAtomic(this.rangesPath, `${JSON.stringify(file)}\n`);
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
