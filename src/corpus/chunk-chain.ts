import { chunkExtent, type ChunkExtent, type StoredChunk } from "./chunker.js";
import { loadStored } from "./stored.js";
import { VertdupError } from "../core/errors.js";

/**
 * Where a chunk's numbering ends, that is where the next chunk's documents and lines start,
 * in memory shared by the coordinator and the workers: a state word, then the ordinal and
 * the line after the chunk (float64: a file may have more lines than an int32 holds).
 * A worker publishes it as soon as it has counted its chunk's documents and newlines, before
 * parsing, so the coordinator never counts them (nor reads a plain file) and the next chunk's
 * task waits only for that count, not for the parse.
 */
export type ChainLink = SharedArrayBuffer;

const STATE = 0;
const EMPTY = 0;
const PUBLISHED = 1;
const FAILED = 2;
/** Float64 slots after the state word (padded to 8 bytes). */
const DOC = 1;
const LINE = 2;

export interface ChainEnd {
  doc: number;
  /** NaN when the chunk did not count its newlines (a planned range: the next one knows its line). */
  line: number;
}

export function newLink(): ChainLink {
  return new SharedArrayBuffer(24);
}

/** The link that starts a chain: the first chunk's ordinal and line. */
export function chainStart(doc: number): ChainLink {
  const link = newLink();
  publish(link, { doc, line: 1 });
  return link;
}

function publish(link: ChainLink, end: ChainEnd): void {
  const values = new Float64Array(link);
  values[DOC] = end.doc;
  values[LINE] = end.line;
  // The atomic store orders the values before it for any thread that loads the state.
  Atomics.store(new Int32Array(link), STATE, PUBLISHED);
  Atomics.notify(new Int32Array(link), STATE);
}

function fail(link: ChainLink): void {
  Atomics.store(new Int32Array(link), STATE, FAILED);
  Atomics.notify(new Int32Array(link), STATE);
}

function read(link: ChainLink): ChainEnd {
  const values = new Float64Array(link);
  return { doc: values[DOC], line: values[LINE] };
}

/** The end of a chunk whose task has completed (its link is published by then). */
export function linkEnd(link: ChainLink): ChainEnd {
  if (Atomics.load(new Int32Array(link), STATE) !== PUBLISHED) throw new Error("vertdup: a chunk's numbering was read before its task published it");
  return read(link);
}

/**
 * Blocks (a worker thread) until the previous chunk's end is published. Tasks start in
 * corpus order on a first-in first-out pool, so the previous chunk's task has started (or
 * finished) and publishes after counting alone: nothing waits on a task that waits for it.
 */
function awaitEnd(link: ChainLink): ChainEnd {
  const state = new Int32Array(link);
  for (;;) {
    const s = Atomics.load(state, STATE);
    if (s === PUBLISHED) return read(link);
    if (s === FAILED) throw new VertdupError("an earlier chunk of the corpus failed");
    Atomics.wait(state, STATE, EMPTY);
  }
}

/**
 * A chunk whose first ordinal and line the chunks before it decide: its task counts its
 * documents and newlines (unless known: `docCount`), takes its start from `prev` and
 * publishes its end in `self`. `firstLine`, when known (a file's first chunk, a range after a
 * skipped document, a planned range), is taken instead of the previous chunk's end line.
 */
export type ChainedChunk = Omit<StoredChunk, "firstDoc" | "firstLine" | "docCount"> & {
  firstLine?: number;
  docCount?: number;
  prev: ChainLink;
  self: ChainLink;
};

export function isChained(chunk: StoredChunk | ChainedChunk): chunk is ChainedChunk {
  return "prev" in chunk;
}

/**
 * Numbers a chained chunk in a worker: its documents and newlines counted in `raw` (its
 * bytes, absent when its document count is known) by `measure`, its start awaited, its end published.
 * Whatever fails first marks its link failed, so that later chunks stop instead of waiting.
 */
export function placeChunk(chunk: ChainedChunk, raw?: Uint8Array, measure: ChunkExtent = chunkExtent): StoredChunk {
  try {
    const extent = chunk.docCount !== undefined ? { docCount: chunk.docCount, lines: NaN } : measure(Buffer.from(raw!.buffer, raw!.byteOffset, raw!.byteLength));
    const start = awaitEnd(chunk.prev);
    const firstLine = chunk.firstLine ?? start.line;
    if (Number.isNaN(firstLine)) throw new Error("vertdup: a chunk after a planned range has no known first line");
    publish(chunk.self, { doc: start.doc + extent.docCount, line: firstLine + extent.lines });
    const { prev: _prev, self: _self, ...rest } = chunk;
    return { ...rest, firstDoc: start.doc, firstLine, docCount: extent.docCount };
  } catch (err) {
    fail(chunk.self);
    throw err;
  }
}

/** A chunk's bytes (loadStored); a chained chunk that cannot be read marks its link failed. */
export function loadChunkBytes(chunk: StoredChunk | ChainedChunk, reuse: { bytes: Uint8Array }): Uint8Array {
  try {
    return loadStored(chunk.bytes, reuse);
  } catch (err) {
    if (isChained(chunk)) fail(chunk.self);
    throw err;
  }
}

// A worker's buffer for the chunks it only numbers.
const linkBuffer = { bytes: new Uint8Array(0) };

/**
 * The task of a chunk that is not counted here (its marker is in place, or it is another
 * slice's): it is only numbered, for the chunks after it.
 */
export function linkChunk(chunk: ChainedChunk): void {
  placeChunk(chunk, chunk.docCount === undefined ? loadChunkBytes(chunk, linkBuffer) : undefined);
}
