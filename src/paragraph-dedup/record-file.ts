import { closeSync, openSync, readSync } from "node:fs";
import { writeFullySync } from "../util/atomic.js";

/**
 * Files of records `chunk, words, words × u32`, appended in chunk order: the n-gram runs of a
 * bucket (payload: occurrences) and the repeated n-grams of a group of chunks (payload:
 * their ends, repeats.ts). Both are read back in blocks of fixed size, so that no file is ever
 * held whole in memory however large the corpus makes it.
 */
export class RecordWriter {
  private readonly fd: number;
  private readonly buf: Uint32Array;
  private used = 0;
  /** Payload words written, headers not counted. */
  words = 0;

  /** `buffer`: where records wait to be written (a caller may reuse one across writers). */
  constructor(private readonly path: string, buffer = new Uint32Array(16 << 10)) {
    this.fd = openSync(path, "w");
    this.buf = buffer;
  }

  add(chunk: number, payload: Uint32Array): void {
    if (this.used + 2 + payload.length > this.buf.length) this.flush();
    this.buf[this.used++] = chunk;
    this.buf[this.used++] = payload.length;
    this.words += payload.length;
    if (2 + payload.length > this.buf.length) {
      this.flush();
      writeFullySync(this.fd, this.path, payload);
      return;
    }
    this.buf.set(payload, this.used);
    this.used += payload.length;
  }

  private flush(): void {
    if (this.used > 0) writeFullySync(this.fd, this.path, this.buf.subarray(0, this.used));
    this.used = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

let block = new Uint32Array(0);

/** A piece of one record's payload; valid only until the reader moves on. */
export interface RecordPart {
  chunk: number;
  data: Uint32Array;
}

/**
 * The records of a file in order, a payload longer than the block split into several parts
 * of the same chunk (each a whole number of `unitWords` groups).
 */
export function* readRecords(path: string, unitWords: number, blockBytes = 1 << 20): Generator<RecordPart> {
  // A thread reads one file at a time: its block buffer serves them all.
  if (block.length < Math.max(blockBytes >> 2, 2 + unitWords)) block = new Uint32Array(Math.max(blockBytes >> 2, 2 + unitWords));
  const buf = block;
  const bytes = new Uint8Array(buf.buffer);
  const fd = openSync(path, "r");
  let filePos = 0;
  let at = 0;
  let filled = 0;
  let eof = false;
  // Moves the unread words to the front and reads more; false at the end of the file.
  const fill = (): boolean => {
    buf.copyWithin(0, at, filled);
    filled -= at;
    at = 0;
    const got = eof ? 0 : readSync(fd, bytes, filled * 4, bytes.length - filled * 4, filePos);
    if (got === 0) eof = true;
    filePos += got;
    filled += got >> 2;
    return got > 0;
  };
  try {
    for (;;) {
      if (filled - at < 2 && !fill() && filled - at < 2) return;
      const chunk = buf[at];
      let left = buf[at + 1];
      at += 2;
      while (left > 0) {
        let take = Math.min(left, filled - at);
        take -= take % unitWords;
        if (take === 0) {
          if (!fill()) throw new Error(`${path}: truncated record`);
          continue;
        }
        yield { chunk, data: buf.subarray(at, at + take) };
        at += take;
        left -= take;
      }
    }
  } finally {
    closeSync(fd);
  }
}
