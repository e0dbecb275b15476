import { scanChunkLines, LineKind, type ChunkSource } from "./chunk-lines.js";
import { decideUnits } from "./decide.js";

export interface RenderTask extends ChunkSource {
  /** Repeated n-gram occurrences per unit of the chunk. */
  repeated: Uint32Array;
  structure: string;
  docTag: string;
  threshold: number;
  maxStub: number;
  mark: boolean;
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

const MARK_BAD = Buffer.from("1\t");
const MARK_OK = Buffer.from("0\t");
const NL = 0x0a;

/**
 * Writes the output of one chunk. Removal mode copies every kept line byte for byte (lines
 * outside documents are always kept); `mark` mode writes every line prefixed with `1\t`
 * (removed) or `0\t` (kept), as onion does. A document's own tags are removed (marked 1)
 * exactly when the document is. Every output line ends with `\n`.
 */
export function renderChunk(task: RenderTask): Rendered {
  const layout = scanChunkLines(task, task.structure, task.docTag);
  const { lineCount, lineStart, lineEnd, kind, lineSeg, segTokens, docFirstSeg } = layout;
  const verdict = decideUnits(segTokens, task.repeated, docFirstSeg, task.threshold, task.maxStub);
  const src = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength);
  const out = Buffer.allocUnsafe(task.mark ? src.length + 2 * lineCount + 1 : src.length + 1);
  let w = 0;
  let doc = -1;
  let tokensOut = 0;
  // Removal mode copies runs of consecutive kept lines at once.
  let runFrom = -1;
  let runTo = 0;
  const flush = () => {
    if (runFrom >= 0) w += src.copy(out, w, runFrom, runTo);
    runFrom = -1;
  };
  for (let li = 0; li < lineCount; li++) {
    const k = kind[li];
    if (k === LineKind.DocOpen) doc++;
    const removed =
      k === LineKind.Outside ? false : k === LineKind.DocOpen || k === LineKind.DocClose ? verdict.docBad[doc] === 1 : verdict.bad[lineSeg[li]] === 1;
    if (!removed && k === LineKind.Token) tokensOut++;
    // The file's first line keeps a UTF-8 byte-order mark the scan skipped.
    const start = li === 0 ? 0 : lineStart[li];
    const end = lineEnd[li];
    if (task.mark) {
      (removed ? MARK_BAD : MARK_OK).copy(out, w);
      w += 2;
      w += src.copy(out, w, start, end);
      out[w++] = NL;
    } else if (removed) {
      flush();
    } else if (end < src.length) {
      if (runFrom < 0) runFrom = start;
      runTo = end + 1;
    } else {
      flush();
      w += src.copy(out, w, start, end);
      out[w++] = NL;
    }
  }
  flush();
  let tokensIn = 0;
  let paragraphsIn = 0;
  let paragraphsOut = 0;
  for (let s = 0; s < segTokens.length; s++) {
    tokensIn += segTokens[s];
    if (segTokens[s] > 0) {
      paragraphsIn++;
      if (verdict.bad[s] === 0) paragraphsOut++;
    }
  }
  let docsOut = 0;
  for (let d = 0; d < layout.docCount; d++) if (verdict.docBad[d] === 0) docsOut++;
  return {
    bytes: out.subarray(0, w),
    stats: {
      docsIn: layout.docCount,
      docsOut,
      paragraphsIn,
      paragraphsOut,
      tokensIn,
      tokensOut,
      duplicates: verdict.duplicates,
      stubs: verdict.stubs,
    },
  };
}
