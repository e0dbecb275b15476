import { openInput, describeStreamError, displayName } from "./open-input.js";
import { countByte } from "../util/count-byte.js";
import { VertdupError } from "../util/errors.js";

/**
 * A run of whole lines of one input file that starts at a `<doc` line (or at the file's
 * start) and ends just before the next chunk's `<doc` line. Chunks are the unit of work of
 * the preparatory phase; their boundaries depend only on the input bytes and `targetBytes`,
 * never on the number of workers, so every output is independent of parallelism.
 */
export interface Chunk {
  /** 0-based position of the chunk in the corpus. */
  index: number;
  /** Input path as given (`-` for stdin); `file` is its display name. */
  file: string;
  /** 1-based line number of the chunk's first line within its file. */
  firstLine: number;
  /** 0-based ordinal (in the whole corpus) of the first `<doc` that starts in this chunk. */
  firstDoc: number;
  /** Number of lines starting with `<doc` in the chunk. */
  docCount: number;
  bytes: Buffer;
}

const NL = 0x0a;
const DOC_OPEN = Buffer.from("\n<doc");

function isDocStartAt(buf: Buffer, lineStart: number): boolean {
  // `<doc` followed by a space, a tab or `>` (not `<document>` nor `<doc_meta>`).
  if (buf[lineStart] !== 0x3c || buf[lineStart + 1] !== 0x64 || buf[lineStart + 2] !== 0x6f || buf[lineStart + 3] !== 0x63) return false;
  const c = buf[lineStart + 4];
  return c === 0x20 || c === 0x09 || c === 0x3e || c === 0x0d;
}

function countDocStarts(buf: Buffer, from: number, to: number): number {
  // A UTF-8 byte-order mark before the file's first line is skipped, as the parser's decoder does.
  const first = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  let n = from === 0 && isDocStartAt(buf, first) ? 1 : 0;
  let i = buf.indexOf(DOC_OPEN, Math.max(0, from - 1));
  while (i !== -1 && i + 1 < to) {
    if (isDocStartAt(buf, i + 1)) n++;
    i = buf.indexOf(DOC_OPEN, i + 1);
  }
  return n;
}

/** Finds the first doc-start line beginning at or after `from`, or -1. */
function firstDocStartFrom(buf: Buffer, from: number): number {
  let i = buf.indexOf(DOC_OPEN, Math.max(0, from - 1));
  while (i !== -1) {
    if (isDocStartAt(buf, i + 1)) return i + 1;
    i = buf.indexOf(DOC_OPEN, i + 1);
  }
  return -1;
}

/**
 * Splits the inputs, in order, into chunks of at least `targetBytes` (up to the next
 * document start). Memory held is one pending chunk plus the stream buffer.
 */
export async function* chunkCorpus(
  inputs: readonly string[],
  targetBytes: number,
): AsyncGenerator<Chunk> {
  let index = 0;
  let docOrdinal = 0;
  for (const path of inputs) {
    const stream = openInput(path);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let firstLine = 1;
    const emit = (bytes: Buffer): Chunk => {
      const docCount = countDocStarts(bytes, 0, bytes.length);
      const chunk: Chunk = { index: index++, file: path, firstLine, firstDoc: docOrdinal, docCount, bytes };
      docOrdinal += docCount;
      firstLine += countByte(bytes, NL);
      return chunk;
    };
    try {
      for await (const piece of stream as AsyncIterable<Buffer>) {
        pending.push(piece);
        pendingBytes += piece.length;
        while (pendingBytes >= targetBytes) {
          const buf = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
          // Cut at the first document that starts past the target size, so that chunk
          // boundaries depend on the bytes alone, not on how the stream delivered them.
          const cut = firstDocStartFrom(buf, targetBytes);
          if (cut <= 0) {
            pending = [buf];
            break;
          }
          yield emit(buf.subarray(0, cut));
          const rest = buf.subarray(cut);
          pending = rest.length > 0 ? [rest] : [];
          pendingBytes = rest.length;
        }
      }
    } catch (err) {
      if (err instanceof VertdupError) throw err;
      throw describeStreamError(path, err);
    }
    if (pendingBytes > 0) {
      yield emit(pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes));
    } else if (firstLine === 1) {
      throw new VertdupError(`${displayName(path)}: input is empty`);
    }
  }
}
