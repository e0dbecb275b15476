import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { rm } from "node:fs/promises";
import { openAtomicHandle, writeError } from "../util/atomic.js";
import { join } from "node:path";
import { completedTasks, markerFile, shardName } from "../workdir/layout.js";
import type { KeyRange } from "./ngram-index.js";
import type { ChunkOccurrences, LineWarnings } from "./occurrences.js";
import type { ProblemFound } from "./line-problem.js";
import type { RepeatsResult } from "./bucket-task.js";

/**
 * What the resumable steps of `vertdup paragraphs` leave in a work directory (`-w`) for a
 * resumed run to read back instead of computing again: per chunk its n-gram occurrences and
 * layout, per bucket table its repeated occurrences and keys. Each file is a JSON header and
 * 4-aligned binary parts, written durably (the task's marker, written after, must not outlive it).
 */
export const STEP_FOLDER = "paragraph-steps";

/** The markers of the n-gram tasks (one per chunk) and of the repeats tasks start so. */
export const NGRAMS_TASKS = "paragraphs-ngrams-";
export const REPEATS_TASKS = "paragraphs-repeats-";

export const ngramsMarker = (chunk: number) => `${NGRAMS_TASKS}${shardName(chunk)}`;
/** The marker of the repeats task of `tables` bucket tables from the one of `first`'s key range on. */
export const repeatsMarker = (first: KeyRange, tables: number) => `${REPEATS_TASKS}${first.bits}-${first.prefix}-x${tables}`;

const ngramsFile = (workdir: string, chunk: number) => join(workdir, STEP_FOLDER, `${shardName(chunk)}.ngrams`);
const repeatsFile = (workdir: string, range: KeyRange) => join(workdir, STEP_FOLDER, `repeats-${range.bits}-${range.prefix}.bin`);

const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

async function writeParts(path: string, header: object, parts: ArrayBufferView[]): Promise<void> {
  const json = Buffer.from(JSON.stringify({ ...header, parts: parts.map((p) => p.byteLength) }));
  // Length word, header and padding: the parts start 4-aligned, to be read as Uint32Array.
  const head = Buffer.alloc(4 + Math.ceil(json.length / 4) * 4, 0x20);
  head.writeUInt32LE(json.length, 0);
  json.copy(head, 4);
  const buffers = [head, ...parts.map((p) => bytesOf(p)).flatMap((p) => (p.byteLength % 4 === 0 ? [p] : [p, Buffer.alloc(4 - (p.byteLength % 4))]))];
  const file = await openAtomicHandle(path);
  try {
    let size = 0;
    for (const b of buffers) {
      for (let done = 0; done < b.byteLength; ) done += (await file.handle.write(b, done, b.byteLength - done, size + done)).bytesWritten;
      size += b.byteLength;
    }
    await file.commit(size);
  } catch (err) {
    await file.abort();
    throw writeError(path, err);
  }
}

/** A parts file read whole into one buffer (shared when asked), with each part's place in it. */
function readParts<H>(path: string, shared: boolean): { header: H; buffer: ArrayBufferLike; parts: { offset: number; length: number }[] } {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const bytes = new Uint8Array(shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size));
    for (let done = 0; done < size; ) done += readSync(fd, bytes, done, size - done, done);
    const length = Buffer.from(bytes.buffer, 0, 4).readUInt32LE(0);
    const header = JSON.parse(Buffer.from(bytes.buffer, 4, length).toString("utf8")) as H & { parts: number[] };
    let offset = 4 + Math.ceil(length / 4) * 4;
    const parts = header.parts.map((len) => {
      const part = { offset, length: len };
      offset += Math.ceil(len / 4) * 4;
      return part;
    });
    return { header, buffer: bytes.buffer, parts };
  } finally {
    closeSync(fd);
  }
}

interface NgramsHeader {
  problem?: ProblemFound["problem"];
  tokens: number;
  lines: number;
  warnings: LineWarnings;
}

/** Saves a chunk's n-gram pass result (its bytes are not saved: the resumed run reads the chunk again). */
export async function saveNgrams(workdir: string, chunk: number, r: ChunkOccurrences | ProblemFound): Promise<void> {
  if ("problem" in r) return writeParts(ngramsFile(workdir, chunk), { problem: r.problem, tokens: 0, lines: 0, warnings: { emptyLine: 0, tagOutsideDoc: 0 } }, []);
  await writeParts(ngramsFile(workdir, chunk), { tokens: r.tokens, lines: r.lines, warnings: r.warnings }, [r.occ, r.bucketStart, r.layout]);
}

/** A saved chunk result; its occurrences in shared memory when `shared` (memory mode's repeats tasks read them in place). */
export function loadNgrams(workdir: string, chunk: number, shared: boolean): ChunkOccurrences | ProblemFound {
  const { header, buffer, parts } = readParts<NgramsHeader>(ngramsFile(workdir, chunk), shared);
  if (header.problem !== undefined) return { problem: header.problem };
  const [occ, starts, layout] = parts;
  return {
    occ: new Uint32Array(buffer, occ.offset, occ.length / 4),
    bucketStart: new Uint32Array(buffer, starts.offset, starts.length / 4),
    layout: new Int32Array(buffer, layout.offset, layout.length / 4),
    bytes: null,
    tokens: header.tokens,
    lines: header.lines,
    warnings: header.warnings,
  };
}

export async function saveRepeats(workdir: string, range: KeyRange, r: RepeatsResult): Promise<void> {
  const keys = [r.all, r.fresh].filter((k) => k !== undefined);
  await writeParts(repeatsFile(workdir, range), { all: r.all !== undefined, fresh: r.fresh !== undefined }, [r.repeats, ...keys]);
}

export function loadRepeats(workdir: string, range: KeyRange): RepeatsResult {
  const { header, buffer, parts } = readParts<{ all: boolean; fresh: boolean }>(repeatsFile(workdir, range), false);
  const [repeats, ...keys] = parts;
  const part = ({ offset, length }: { offset: number; length: number }) => new Uint8Array(buffer, offset, length);
  return {
    repeats: new Uint32Array(buffer, repeats.offset, repeats.length / 4),
    ...(header.all ? { all: part(keys.shift()!) } : {}),
    ...(header.fresh ? { fresh: part(keys.shift()!) } : {}),
  };
}

/**
 * Removes what the tasks of the n-gram and repeats steps left (their saved results and
 * markers) once the run no longer needs them; the steps' own markers stay, and say the run is done.
 */
export async function removeTaskFiles(workdir: string): Promise<void> {
  await rm(join(workdir, STEP_FOLDER), { recursive: true, force: true });
  const tasks = (await completedTasks(workdir)).filter((m) => m.startsWith(NGRAMS_TASKS) || m.startsWith(REPEATS_TASKS));
  await Promise.all(tasks.map((m) => rm(markerFile(workdir, m), { force: true })));
}
