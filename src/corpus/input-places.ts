import { statSync } from "node:fs";
import { compressionOf } from "./open-input.js";
import { VertdupError } from "../core/errors.js";

/**
 * The inputs that can be read by byte range, any number of times: plain, regular files.
 * Workers read their chunks from them directly, and the output pass reads them again
 * instead of keeping or spooling a copy. Compressed files, standard input and pipes cannot.
 */
export class InputPlaces {
  private readonly seen = new Map<string, { size: number; mtimeMs: number } | null>();

  constructor(inputs: readonly string[]) {
    for (const path of inputs) {
      const st = path === "-" || compressionOf(path) !== "none" ? null : statSync(path);
      this.seen.set(path, st?.isFile() ? { size: st.size, mtimeMs: st.mtimeMs } : null);
    }
  }

  /** The size of a file read by range, or null for an input read as a stream. */
  size(path: string): number | null {
    return this.seen.get(path)?.size ?? null;
  }

  /** The size and modification time of a file read by range, as first seen; null for an input read as a stream. */
  stamp(path: string): { size: number; mtimeMs: number } | null {
    return this.seen.get(path) ?? null;
  }

  /** Fails when a file read by range has changed since the run started. */
  checkUnchanged(): void {
    for (const [path, was] of this.seen) {
      if (was === null) continue;
      const st = statSync(path);
      if (st.size !== was.size || st.mtimeMs !== was.mtimeMs) throw new VertdupError(`${path}: the input changed during the run`);
    }
  }
}
