import { unpackLayout } from "./chunk-layout.js";
import { decideUnits, repeatedPerUnit } from "./decide.js";
import type { CountRule } from "../core/paragraph-options.js";
import { loadStored, type Stored } from "../corpus/stored.js";

export interface RenderTask {
  /** The chunk's bytes. */
  bytes: Stored;
  /** Its packed layout (chunk-layout.ts), from the n-gram pass. */
  layout: Stored;
  /** The chunk's repeated n-gram ends, one bit per token (repeated-ends.ts). */
  repeated: Uint32Array;
  count: CountRule;
  ngram: number;
  threshold: number;
  maxStub: number;
  mark: boolean;
  /** A buffer of an earlier output to write into, when large enough (fewer allocations). */
  reuse: ArrayBuffer | null;
}

/** Counts of one chunk, before (`in`) and after (`out`) removal. */
export interface RenderStats {
  docsIn: number;
  docsOut: number;
  paragraphsIn: number;
  paragraphsOut: number;
  tokensIn: number;
  tokensOut: number;
  duplicates: number;
  stubs: number;
}

export interface Rendered {
  bytes: Uint8Array;
  stats: RenderStats;
}

const NL = 0x0a;
const MARK_BAD = 0x31;
const MARK_OK = 0x30;
const TAB = 0x09;
// Reused by every render task of a worker: the chunk's bytes are read, copied out, dropped.
const readBuffer = { bytes: new Uint8Array(0) };

/**
 * Writes the output of one chunk from its layout, without reading its lines again. Removal
 * mode copies the byte ranges of kept units, document tag lines and lines between documents
 * (always kept), joining neighbouring ranges into one copy; `mark` mode writes every line
 * prefixed with `1\t` (removed) or `0\t` (kept), as onion does. A document's own tags are
 * removed (marked 1) exactly when the document is. Every output line ends with `\n`.
 */
export function renderChunk(task: RenderTask): Rendered {
  const loaded = loadStored(task.layout);
  const layout = unpackLayout(new Int32Array(loaded.buffer, loaded.byteOffset, loaded.byteLength >> 2));
  const { segStart, segTokens, docFirstSeg, docOpen, docClose, docEnd } = layout;
  const repeated = repeatedPerUnit(segTokens, task.repeated, task.count, task.ngram);
  const verdict = decideUnits(segTokens, repeated, docFirstSeg, task.threshold, task.maxStub);
  const raw = loadStored(task.bytes, readBuffer);
  const src = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const n = src.length;
  const need = task.mark ? n + 2 * layout.lineCount + 1 : n + 1;
  const out = task.reuse !== null && task.reuse.byteLength >= need ? Buffer.from(task.reuse) : Buffer.allocUnsafeSlow(Math.ceil(need * 1.25));
  let w = 0;
  let runFrom = 0;
  let runTo = 0;
  const flush = () => {
    if (runTo > runFrom) w += src.copy(out, w, runFrom, runTo);
    runFrom = runTo;
  };
  // Removal mode: a kept range extends the pending copy when it starts where that ends.
  const keep = (from: number, to: number) => {
    if (to === from) return;
    if (from !== runTo) {
      flush();
      runFrom = from;
    }
    runTo = to;
  };
  const mark = (from: number, to: number, removed: boolean) => {
    for (let at = from; at < to; ) {
      let end = src.indexOf(NL, at);
      if (end === -1 || end >= to) end = to;
      out[w++] = removed ? MARK_BAD : MARK_OK;
      out[w++] = TAB;
      w += src.copy(out, w, at, end);
      out[w++] = NL;
      at = end + 1;
    }
  };
  const piece = task.mark ? mark : (from: number, to: number, removed: boolean) => removed || keep(from, to);
  let gap = 0;
  for (let d = 0; d < docOpen.length; d++) {
    const first = docFirstSeg[d];
    const last = docFirstSeg[d + 1];
    const docRemoved = verdict.docBad[d] === 1;
    piece(gap, docOpen[d], false);
    piece(docOpen[d], segStart[first], docRemoved);
    for (let s = first; s < last; s++) piece(segStart[s], s + 1 < last ? segStart[s + 1] : docClose[d], verdict.bad[s] === 1);
    piece(docClose[d], docEnd[d], docRemoved);
    gap = docEnd[d];
  }
  piece(gap, n, false);
  if (!task.mark) {
    flush();
    // A missing final newline is added (mark mode adds one to every line).
    if (n > 0 && runTo === n && src[n - 1] !== NL) out[w++] = NL;
  }
  let tokensIn = 0;
  let tokensOut = 0;
  let paragraphsIn = 0;
  let paragraphsOut = 0;
  for (let s = 0; s < segTokens.length; s++) {
    const t = segTokens[s];
    tokensIn += t;
    if (t > 0) {
      paragraphsIn++;
      if (verdict.bad[s] === 0) {
        paragraphsOut++;
        tokensOut += t;
      }
    }
  }
  let docsOut = 0;
  for (let d = 0; d < docOpen.length; d++) if (verdict.docBad[d] === 0) docsOut++;
  return {
    bytes: out.subarray(0, w),
    stats: { docsIn: docOpen.length, docsOut, paragraphsIn, paragraphsOut, tokensIn, tokensOut, duplicates: verdict.duplicates, stubs: verdict.stubs },
  };
}
