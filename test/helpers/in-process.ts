import { vi } from "vitest";
import { vertdupCommandLine } from "../../src/cli/program.js";
import { systemErrorForUser } from "../../src/util/atomic.js";
import type { CliResult } from "./cli.js";

// The commands run in this process (a spawn costs a second or more on a loaded machine): the
// CLI's own parser, its failures mapped to exit codes as src/cli.ts maps them.

class UsageFailure extends Error {}

/** `vertdup args…` in this process: its exit status and what it wrote. */
export async function inProcess(args: string[]): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  const log = vi.spyOn(console, "log").mockImplementation((...parts: unknown[]) => void (stdout += `${parts.join(" ")}\n`));
  let status = 0;
  try {
    await vertdupCommandLine(args)
      .fail((msg, e) => {
        if (e) throw e;
        throw new UsageFailure(msg);
      })
      .parseAsync();
  } catch (e) {
    if (e instanceof UsageFailure) {
      status = 2;
      stderr += `vertdup: ${e.message}\n`;
    } else if (systemErrorForUser(e) !== null) {
      status = 1;
      stderr += `vertdup: error: ${systemErrorForUser(e)?.message}\n`;
    } else {
      status = 70;
      stderr += `vertdup: internal error: ${e instanceof Error ? e.stack : String(e)}\n`;
    }
  } finally {
    out.mockRestore();
    err.mockRestore();
    log.mockRestore();
  }
  return { status, stdout, stderr };
}
