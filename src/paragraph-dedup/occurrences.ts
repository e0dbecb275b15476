import { scanChunkLines, LineKind, type ChunkSource, type LineWarnings } from "./chunk-lines.js";
import { hashToken, keyHi, keyLo, LANE_MUL_A, LANE_MUL_B, roll, rollingHash } from "./ngram-hash.js";

/** n-gram keys are spread over this many buckets by the top bits of their high lane. */
export const BUCKET_BITS = 8;
export const BUCKETS = 1 << BUCKET_BITS;

/** Words per n-gram occurrence: key low lane, key high lane, unit of the n-gram's last token. */
export const OCC_WORDS = 3;

export interface OccurrenceTask extends ChunkSource {
  ngram: number;
  structure: string;
  docTag: string;
}

/** What the n-gram pass returns for one chunk. */
export interface ChunkOccurrences {
  /** Occurrences grouped by bucket, corpus order inside a bucket; in shared memory (no copy). */
  occ: Uint32Array;
  /** Start of each bucket in `occ`, in occurrences; `BUCKETS + 1` entries. */
  bucketStart: Uint32Array;
  units: number;
  /** Units with at least one token (onion's paragraphs). */
  paragraphs: number;
  tokens: number;
  docs: number;
  lines: number;
  warnings: LineWarnings;
}

/**
 * The n-gram pass over one chunk: every window of `ngram` consecutive tokens of a document
 * (across units, restarting at each document, tags and empty lines skipped) is one
 * occurrence, attributed to the unit of its last token. Documents never cross chunks, so a
 * chunk's occurrences are complete on their own.
 */
export function chunkOccurrences(task: OccurrenceTask): ChunkOccurrences {
  const layout = scanChunkLines(task, task.structure, task.docTag);
  const { lineCount, lineStart, lineEnd, kind, lineSeg } = layout;
  const bytes = task.bytes;
  const n = task.ngram;
  const { powA, powB } = rollingHash(n);
  let tokens = 0;
  for (let i = 0; i < layout.segTokens.length; i++) tokens += layout.segTokens[i];
  const lo = new Uint32Array(tokens);
  const hi = new Uint32Array(tokens);
  const seg = new Uint32Array(tokens);
  const counts = new Uint32Array(BUCKETS + 1);
  const ringA = new Int32Array(n);
  const ringB = new Int32Array(n);
  const th = new Uint32Array(2);
  const shift = 32 - BUCKET_BITS;
  let occCount = 0;
  let inDoc = 0;
  let a = 0;
  let b = 0;
  for (let li = 0; li < lineCount; li++) {
    const k = kind[li];
    if (k === LineKind.DocOpen) {
      ringA.fill(0);
      ringB.fill(0);
      inDoc = 0;
      a = 0;
      b = 0;
      continue;
    }
    if (k !== LineKind.Token) continue;
    hashToken(bytes, lineStart[li], lineEnd[li], th);
    const slot = inDoc % n;
    a = roll(a, LANE_MUL_A, powA, th[0] | 0, ringA[slot]);
    b = roll(b, LANE_MUL_B, powB, th[1] | 0, ringB[slot]);
    ringA[slot] = th[0] | 0;
    ringB[slot] = th[1] | 0;
    inDoc++;
    if (inDoc >= n) {
      const l = keyLo(a);
      const h = keyHi(l, b);
      lo[occCount] = l;
      hi[occCount] = h;
      seg[occCount] = lineSeg[li];
      counts[(h >>> shift) + 1]++;
      occCount++;
    }
  }
  for (let i = 1; i <= BUCKETS; i++) counts[i] += counts[i - 1];
  const bucketStart = counts.slice();
  const occ = new Uint32Array(new SharedArrayBuffer(occCount * OCC_WORDS * 4));
  for (let i = 0; i < occCount; i++) {
    const at = counts[hi[i] >>> shift]++ * OCC_WORDS;
    occ[at] = lo[i];
    occ[at + 1] = hi[i];
    occ[at + 2] = seg[i];
  }
  let paragraphs = 0;
  for (let i = 0; i < layout.segTokens.length; i++) if (layout.segTokens[i] > 0) paragraphs++;
  return {
    occ,
    bucketStart,
    units: layout.segTokens.length,
    paragraphs,
    tokens,
    docs: layout.docCount,
    lines: lineCount,
    warnings: layout.warnings,
  };
}
