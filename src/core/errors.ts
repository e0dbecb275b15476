/**
 * An error the user caused or can fix (bad input, bad option, unwritable path).
 * The CLI prints its message alone, without a stack trace, and exits non-zero.
 */
export class VertdupError extends Error {
  override readonly name = "VertdupError";
}

/** An input problem at a known place: message reads `file:line: what`. */
export class InputError extends VertdupError {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly problem: string,
  ) {
    super(line > 0 ? `${file}:${line}: ${problem}` : `${file}: ${problem}`);
  }
}
