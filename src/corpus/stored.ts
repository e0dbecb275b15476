import { closeSync, openSync, readSync } from "node:fs";
import { VertdupError } from "../core/errors.js";

/**
 * Bytes a task needs: in (shared) memory, or a byte range of a file that the worker reads
 * itself, so that the coordinator neither reads nor copies them.
 */
export type Stored = Uint8Array | { path: string; offset: number; length: number };

/**
 * The bytes, read from their file when they are not in memory: into `reuse` when given (a
 * worker's buffer for bytes it does not keep), else into a fresh buffer (aligned at 0).
 */
export function loadStored(s: Stored, reuse?: { bytes: Uint8Array }): Uint8Array {
  if (s instanceof Uint8Array) return s;
  if (reuse !== undefined && reuse.bytes.length < s.length) reuse.bytes = Buffer.allocUnsafeSlow(Math.ceil(s.length * 1.25));
  const buf = reuse === undefined ? Buffer.allocUnsafeSlow(s.length) : reuse.bytes.subarray(0, s.length);
  const fd = openSync(s.path, "r");
  try {
    for (let done = 0; done < s.length; ) {
      const got = readSync(fd, buf, done, s.length - done, s.offset + done);
      if (got === 0) throw new VertdupError(`${s.path}: shorter than when it was first read (changed during the run?)`);
      done += got;
    }
  } finally {
    closeSync(fd);
  }
  return buf;
}
