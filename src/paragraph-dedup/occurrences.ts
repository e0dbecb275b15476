import { isUtf8 } from "node:buffer";
import { packLayout } from "./chunk-layout.js";
import { growableI32, type GrowableArray } from "../util/typed-arrays.js";
import { LineProblem, type ProblemFound } from "./line-problem.js";
import { restartsWindow, tagNames, tagRole, TagRole } from "./line-tag.js";
import { hashNormalWord, hashWord, keyHi, keyLo, LANE_MUL_A, LANE_MUL_B, partitionLanes, roll, rollingHash } from "./ngram-hash.js";
import type { Boundary } from "../core/paragraph-options.js";
import type { Normalization } from "../core/options.js";
import { twoByteTable } from "../features/terms.js";
import { loadStored, type Stored } from "../corpus/stored.js";
import { badLine, opensLike } from "../corpus/vertical.js";

/** n-gram keys are spread over this many buckets by the top bits of their high lane. */
export const BUCKET_BITS = 8;
export const BUCKETS = 1 << BUCKET_BITS;

/**
 * Words per n-gram occurrence: key low lane, key high lane, and the n-gram's *end*: the index
 * of its last token among the chunk's tokens (which places it in its unit and in the unit's
 * tokens, as the covered-token rule needs).
 */
export const OCC_WORDS = 3;

/** Harmless irregularities, counted (as the core reader does) and reported. */
export interface LineWarnings {
  emptyLine: number;
  tagOutsideDoc: number;
}

export interface OccurrenceTask {
  bytes: Stored;
  /** The chunk starts its file (where a UTF-8 byte-order mark is skipped). */
  fileStart: boolean;
  ngram: number;
  boundary: Boundary;
  structure: string;
  docTag: string;
  /** The tokens' Unicode form. */
  normalize: Normalization;
  /** `--partition-attr`: each document's n-gram keys are mixed with its value's hash, so only its partition's can equal them. */
  partitionAttr?: string;
  /** Occurrences in shared memory: the repeats tasks of memory mode read them in place. */
  shared: boolean;
  /** Else a buffer of an earlier chunk's occurrences to write into, when large enough. */
  reuse: ArrayBuffer | null;
}

/** What the n-gram pass returns for one chunk. */
export interface ChunkOccurrences {
  /** Occurrences grouped by bucket, corpus order inside a bucket. */
  occ: Uint32Array;
  /** Start of each bucket in `occ`, in occurrences; `BUCKETS + 1` entries. */
  bucketStart: Uint32Array;
  /** The chunk's units and documents (chunk-layout.ts, packed). */
  layout: Int32Array;
  /** The task's bytes when they came in memory, handed back to the coordinator. */
  bytes: Uint8Array | null;
  tokens: number;
  lines: number;
  warnings: LineWarnings;
}

const NL = 0x0a;
const CR = 0x0d;
const LT = 0x3c;

// Reused by every task of a worker: at most one occurrence per two bytes of a chunk.
let scratch = { lo: new Uint32Array(0), hi: new Uint32Array(0), end: new Uint32Array(0) };
const readBuffer = { bytes: new Uint8Array(0) };

function invalidUtf8Line(bytes: Buffer): never {
  for (let start = 0, line = 1; ; line++) {
    let end = bytes.indexOf(NL, start);
    if (end === -1) end = bytes.length;
    if (!isUtf8(bytes.subarray(start, end))) throw new LineProblem(line, badLine.utf8);
    start = end + 1;
  }
}

/**
 * The n-gram pass over one chunk, in one reading of its bytes. It validates as the core
 * reader does (text outside a document, nested or unclosed documents, a stray closing
 * document tag, an empty document element, CRLF line ends and invalid UTF-8 throw a
 * LineProblem, its line counted from the chunk's first), finds the units and documents (a
 * unit starts at a document's open tag, at an open `<structure>` tag and at the line after a
 * `</structure>` tag; every line of a document belongs to one) and makes every window of
 * `ngram` consecutive tokens of a document (across units, restarting at each document and,
 * with `boundary` s, at every sentence tag) one occurrence, placed by its last token. Documents
 * never cross chunks, so a chunk's occurrences are complete on their own.
 */
function chunkOccurrences(task: OccurrenceTask): ChunkOccurrences {
  const raw = loadStored(task.bytes, readBuffer);
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  if (!isUtf8(bytes)) invalidUtf8Line(bytes);
  const n = bytes.length;
  const docTag = task.docTag;
  const names = tagNames(task.structure, docTag, task.boundary === "doc" ? null : task.boundary);
  const need = (n >> 1) + 2;
  if (scratch.lo.length < need) scratch = { lo: new Uint32Array(need), hi: new Uint32Array(need), end: new Uint32Array(need) };
  const { lo, hi, end: occEnd } = scratch;
  const segStart = growableI32(Math.max(16, n >> 9));
  // The chunk's token count where each unit starts: the units' tokens are the differences.
  const segFirstToken = growableI32(Math.max(16, n >> 9));
  const docFirstSeg = growableI32(Math.max(16, n >> 12));
  const docOpen = growableI32(Math.max(16, n >> 12));
  const docClose = growableI32(Math.max(16, n >> 12));
  const docEnd = growableI32(Math.max(16, n >> 12));
  const warnings: LineWarnings = { emptyLine: 0, tagOutsideDoc: 0 };
  const counts = new Uint32Array(BUCKETS + 1);
  const ngram = task.ngram;
  const form = task.normalize;
  const stable = twoByteTable({ normalize: form, lowercase: false });
  const { powA, powB } = rollingHash(ngram);
  const ringA = new Int32Array(ngram);
  const ringB = new Int32Array(ngram);
  const th = new Uint32Array(2);
  // The document's partition lanes (zero without --partition-attr: keys as without partitions).
  const part = new Int32Array(2);
  const shift = 32 - BUCKET_BITS;
  let occCount = 0;
  let tokens = 0;
  let inDoc = false;
  let docLine = 0;
  let newSegNext = false;
  // Tokens since the window last restarted (at a document, or a sentence tag with `boundary` s).
  let windowTokens = 0;
  let ringAt = 0;
  let a = 0;
  let b = 0;

  let pos = task.fileStart && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let li = 0;
  for (; pos < n; li++) {
    const lineNo = 1 + li;
    const c0 = bytes[pos];
    if (c0 === NL) {
      warnings.emptyLine++;
      if (inDoc && newSegNext) {
        startUnit(segStart, segFirstToken, pos, tokens);
        newSegNext = false;
      }
      pos++;
      continue;
    }
    let end = pos;
    let role = TagRole.NotTag;
    if (c0 === LT) {
      end = pos + 1;
      while (end < n && bytes[end] !== NL) end++;
      if (bytes[end - 1] === CR) throw new LineProblem(lineNo, badLine.crlf);
      role = tagRole(bytes, pos, end, names);
      if (role === TagRole.NotTag && opensLike(bytes, pos, names.docTag)) throw new LineProblem(lineNo, badLine.openUnclosed(docTag));
    }
    // Inline, not a closure: a new closure per chunk would deoptimise this loop at every chunk.
    if (role !== TagRole.NotTag && (role === TagRole.DocOpen || (inDoc && restartsWindow(role, names)))) {
      ringA.fill(0);
      ringB.fill(0);
      windowTokens = 0;
      ringAt = 0;
      a = 0;
      b = 0;
    }
    if (role === TagRole.NotTag) {
      end = form === "none" ? hashWord(bytes, pos, n, th) : hashNormalWord(bytes, pos, n, th, form, stable);
      while (end < n && bytes[end] !== NL) end++;
      if (bytes[end - 1] === CR) throw new LineProblem(lineNo, badLine.crlf);
      if (!inDoc) throw new LineProblem(lineNo, badLine.tokenOutside(docTag));
      if (newSegNext) {
        startUnit(segStart, segFirstToken, pos, tokens);
        newSegNext = false;
      }
      const slot = ringAt;
      ringAt = ringAt + 1 === ngram ? 0 : ringAt + 1;
      a = roll(a, LANE_MUL_A, powA, th[0] | 0, ringA[slot]);
      b = roll(b, LANE_MUL_B, powB, th[1] | 0, ringB[slot]);
      ringA[slot] = th[0] | 0;
      ringB[slot] = th[1] | 0;
      windowTokens++;
      if (windowTokens >= ngram) {
        const l = keyLo(a ^ part[0]);
        const h = keyHi(l, b ^ part[1]);
        lo[occCount] = l;
        hi[occCount] = h;
        occEnd[occCount] = tokens;
        counts[(h >>> shift) + 1]++;
        occCount++;
      }
      tokens++;
    } else if (role === TagRole.DocOpen) {
      if (inDoc) throw new LineProblem(lineNo, badLine.nestedOpen("{line}", docTag), docLine);
      inDoc = true;
      docLine = lineNo;
      if (task.partitionAttr !== undefined) partitionLanes(Buffer.from(bytes.buffer, bytes.byteOffset + pos, end - pos).toString("utf8"), task.partitionAttr, lineNo, part);
      docFirstSeg.push(segStart.length);
      // The file's first line keeps a UTF-8 byte-order mark the scan skipped.
      docOpen.push(li === 0 ? 0 : pos);
      startUnit(segStart, segFirstToken, Math.min(end + 1, n), tokens);
      newSegNext = false;
    } else if (role === TagRole.DocClose) {
      if (!inDoc) throw new LineProblem(lineNo, badLine.strayClose(docTag));
      // The closing tag stays in the document's last unit, as in onion.
      docClose.push(pos);
      docEnd.push(Math.min(end + 1, n));
      inDoc = false;
    } else if (role === TagRole.DocEmpty) {
      throw new LineProblem(lineNo, badLine.emptyDoc(docTag));
    } else if (!inDoc) {
      warnings.tagOutsideDoc++;
    } else if (role === TagRole.UnitOpen) {
      startUnit(segStart, segFirstToken, pos, tokens);
      newSegNext = false;
    } else {
      if (newSegNext) startUnit(segStart, segFirstToken, pos, tokens);
      newSegNext = role === TagRole.UnitClose;
    }
    pos = end + 1;
  }
  if (inDoc) throw new LineProblem(docLine, badLine.neverClosed(docTag));
  docFirstSeg.push(segStart.length);
  const segTokens = differences(segFirstToken.view(), tokens);
  const { occ, bucketStart } = byBucket(scratch, occCount, counts, task);
  const layout = packLayout(li, segStart.view(), segTokens, docFirstSeg.view(), docOpen.view(), docClose.view(), docEnd.view());
  return { occ, bucketStart, layout, bytes: task.bytes instanceof Uint8Array ? task.bytes : null, tokens, lines: li, warnings };
}

// The scan's last steps, as functions of their own: the scan's optimised code is compiled
// while its loop runs and would leave loops after it to the interpreter.

/** Tokens per unit from the token count at each unit's start and the chunk's total. */
function differences(first: Int32Array, total: number): Int32Array {
  const out = new Int32Array(first.length);
  for (let u = 0; u < first.length; u++) out[u] = (u + 1 < first.length ? first[u + 1] : total) - first[u];
  return out;
}

/** The occurrences grouped by bucket (a counting sort; `counts[b + 1]`: bucket b's size). */
function byBucket(found: typeof scratch, occCount: number, counts: Uint32Array, task: OccurrenceTask): { occ: Uint32Array; bucketStart: Uint32Array } {
  const shift = 32 - BUCKET_BITS;
  const { lo, hi, end } = found;
  for (let i = 1; i <= BUCKETS; i++) counts[i] += counts[i - 1];
  const bucketStart = counts.slice();
  const occBytes = occCount * OCC_WORDS * 4;
  const buffer = task.shared ? new SharedArrayBuffer(occBytes) : task.reuse !== null && task.reuse.byteLength >= occBytes ? task.reuse : new ArrayBuffer(Math.ceil(occBytes * 1.25));
  const occ = new Uint32Array(buffer, 0, occCount * OCC_WORDS);
  for (let i = 0; i < occCount; i++) {
    const at = counts[hi[i] >>> shift]++ * OCC_WORDS;
    occ[at] = lo[i];
    occ[at + 1] = hi[i];
    occ[at + 2] = end[i];
  }
  return { occ, bucketStart };
}

/**
 * Starts a unit at byte `at`, `tokens` tokens into the chunk. A module function, not a
 * closure: a new closure per chunk would deoptimise the scan at every chunk.
 */
function startUnit(segStart: GrowableArray<Int32Array>, segFirstToken: GrowableArray<Int32Array>, at: number, tokens: number): void {
  segStart.push(at);
  segFirstToken.push(tokens);
}

/** The n-gram pass as a worker task: bad input comes back as a value, with its lines. */
export function occurrencesTask(task: OccurrenceTask): ChunkOccurrences | ProblemFound {
  try {
    return chunkOccurrences(task);
  } catch (err) {
    if (!(err instanceof LineProblem)) throw err;
    return { problem: { line: err.line, text: err.text, openedAt: err.openedAt } };
  }
}
