/**
 * Where the units and documents of one chunk lie in its bytes: all the output pass needs,
 * found once by the n-gram pass and kept (in memory or spooled) so that no pass scans the
 * chunk's lines twice. A unit's bytes are whole lines, consecutive, from `segStart[u]` to the
 * next unit's start or, for a document's last unit, to its closing tag line. A document's
 * open tag line runs from `docOpen[d]` to its first unit's start and its closing tag line
 * from `docClose[d]` to `docEnd[d]`; the bytes between documents are lines outside them.
 */
export interface ChunkLayout {
  lineCount: number;
  segStart: Int32Array;
  /** Tokens per unit. */
  segTokens: Int32Array;
  /** First unit of each document, plus one entry past the last. */
  docFirstSeg: Int32Array;
  docOpen: Int32Array;
  docClose: Int32Array;
  docEnd: Int32Array;
}

const HEADER = 3;

/** One Int32Array (a single copy between threads, one write to a spool). */
export function packLayout(lineCount: number, segStart: Int32Array, segTokens: Int32Array, docFirstSeg: Int32Array, docOpen: Int32Array, docClose: Int32Array, docEnd: Int32Array): Int32Array {
  const units = segStart.length;
  const docs = docOpen.length;
  const packed = new Int32Array(HEADER + 2 * units + 4 * docs + 1);
  packed[0] = lineCount;
  packed[1] = units;
  packed[2] = docs;
  let at = HEADER;
  for (const part of [segStart, segTokens, docFirstSeg, docOpen, docClose, docEnd]) {
    packed.set(part, at);
    at += part.length;
  }
  return packed;
}

export function unpackLayout(packed: Int32Array): ChunkLayout {
  const units = packed[1];
  const docs = packed[2];
  let at = HEADER;
  const take = (n: number) => packed.subarray(at, (at += n));
  return {
    lineCount: packed[0],
    segStart: take(units),
    segTokens: take(units),
    docFirstSeg: take(docs + 1),
    docOpen: take(docs),
    docClose: take(docs),
    docEnd: take(docs),
  };
}
