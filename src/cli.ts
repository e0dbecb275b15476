#!/usr/bin/env node
import { hideBin } from "yargs/helpers";
import { vertdupCommandLine } from "./cli/program.js";
import { errorCode, systemErrorForUser } from "./util/atomic.js";
import { exitOnSignals, interruptedBy } from "./util/exit-cleanup.js";

async function main(): Promise<void> {
  await vertdupCommandLine(hideBin(process.argv))
    .fail((msg, err) => {
      if (err) throw err;
      process.stderr.write(`vertdup: ${msg}\n(see vertdup --help)\n`);
      process.exit(2);
    })
    .parseAsync();
}

exitOnSignals();

/**
 * The reader of standard output went away (`vertdup … -o - | head`): end quietly with status
 * 0, as Unix tools do, instead of a `write EPIPE` trace (the exit hooks still clean up).
 */
function closedPipe(err: unknown): boolean {
  if (errorCode(err) !== "EPIPE") return false;
  finished = true;
  process.exit(0);
}
// A write of the output to standard output that fails after its writer stopped listening.
process.stdout.on("error", (err) => {
  if (!closedPipe(err)) throw err;
});

let finished = false;
// A stream that never ends leaves a promise pending and Node exits quietly with status 0:
// that must never pass for success.
process.on("exit", (code) => {
  if (!finished && code === 0) {
    process.stderr.write("vertdup: internal error: stopped before the command finished\n");
    process.exitCode = 70;
  }
});

main().then(() => {
  finished = true;
}, (err: unknown) => {
  finished = true;
  // Interrupted: the signal's handler exits once the workers stopped (a task failed as they did).
  if (interruptedBy() !== null) return;
  if (closedPipe(err)) return;
  // A file system failure no step turned into a message of its own (a full disk in any phase) is the user's too.
  const user = systemErrorForUser(err);
  if (user !== null) {
    process.stderr.write(`vertdup: error: ${user.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`vertdup: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(70);
});
