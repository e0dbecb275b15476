import { displayName } from "../corpus/open-input.js";
import { InputError } from "../core/errors.js";

/**
 * Bad input found by a worker, its line numbers counted from the chunk's first line: a worker
 * reads its chunk straight from the file, before the lines of the chunks ahead are counted.
 * `{line}` in the text stands for `openedAt`, another line of the chunk.
 */
export class LineProblem extends Error {
  constructor(
    readonly line: number,
    readonly text: string,
    readonly openedAt?: number,
  ) {
    super(text);
  }
}

/** A LineProblem as a task result (an error loses its fields between threads). */
export interface ProblemFound {
  problem: { line: number; text: string; openedAt?: number };
}

/** The error the user sees, once the line of the chunk's start in its file is known. */
export function problemError(file: string, chunkFirstLine: number, p: ProblemFound["problem"]): InputError {
  const at = (line: number) => chunkFirstLine - 1 + line;
  const text = p.openedAt === undefined ? p.text : p.text.replace("{line}", String(at(p.openedAt)));
  return new InputError(displayName(file), at(p.line), text);
}
