import { access, mkdir } from "node:fs/promises";
import { constants } from "node:fs";
import { VertdupError } from "./errors.js";

/** Creates `dir` if needed and checks that files can be written in it, before any work. */
export async function ensureWritableDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
  } catch (err) {
    const why = err instanceof Error && "code" in err ? ` (${(err as NodeJS.ErrnoException).code})` : "";
    throw new VertdupError(`${dir}: cannot write to this directory${why}`);
  }
}
