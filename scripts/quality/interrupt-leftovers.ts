/**
 * How often an interrupted command leaves files behind (#31 item 6): starts a command on a
 * corpus, sends it SIGINT or SIGTERM after a random delay, and counts what stays.
 *
 *   node dist/scripts/quality/interrupt-leftovers.js [--tries 50] [--command run|paragraphs]
 *       [--workdir] [--corpus data-samples/kjv-3000.vert.gz] [--max-delay-ms 3000]
 *       [--at-first-file] [--workers 4]
 *
 * Without `--workdir` the command runs in a temporary work directory under a `--tmp-dir` of
 * its own: anything left in it is a leftover. `--at-first-file` sends the signal as soon as a
 * worker's first shard file appears (workers writing is when the race was). With `--workdir` it runs with `-w`: a file named
 * `*.tmp-<pid>-…` or the lock left in it is. Signals alternate SIGINT, SIGTERM. Prints each try
 * that left something, then `leftovers: K of N tries`; exit status 1 when K > 0.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    tries: { type: "string", default: "50" },
    command: { type: "string", default: "run" },
    workdir: { type: "boolean", default: false },
    corpus: { type: "string", default: "data-samples/kjv-3000.vert.gz" },
    "max-delay-ms": { type: "string", default: "3000" },
    "at-first-file": { type: "boolean", default: false },
    workers: { type: "string", default: "4" },
  },
});
const CLI = resolve("dist/bundle/cli.js");

/** One interrupted run: what it left (paths relative to the watched directory) and its exit status. */
async function interrupted(signal: NodeJS.Signals, delayMs: number): Promise<{ left: string[]; status: number | null }> {
  const root = mkdtempSync(join(tmpdir(), "vertdup-interrupt-"));
  try {
    const watched = join(root, values.workdir ? "w" : "tmp");
    if (!values.workdir) mkdirSync(watched);
    const place = values.workdir ? ["-w", watched] : ["--tmp-dir", watched];
    const args = [CLI, values.command, values.corpus, ...place, "-o", join(root, values.command === "run" ? "out" : "out.vert"), "--quiet", "--workers", values.workers];
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
    child.stderr.resume();
    const ended = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    // The signal comes after the delay, or at once when a worker's first file appears (`--at-first-file`).
    const started = Date.now();
    const poll = setInterval(() => {
      const due = Date.now() - started >= delayMs || (values["at-first-file"] && existsSync(watched) && readdirSync(watched, { recursive: true, encoding: "utf8" }).some((n) => /\.(zst|sets|ngrams)$/.test(n)));
      if (due) {
        clearInterval(poll);
        child.kill(signal);
      }
    }, 5);
    const status = await ended;
    clearInterval(poll);
    if (!existsSync(watched)) return { left: [], status };
    const names = readdirSync(watched, { recursive: true, encoding: "utf8" });
    const left = values.workdir ? names.filter((n) => n.includes(".tmp-") || n === "vertdup.lock") : names;
    return { left, status };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const tries = Number(values.tries);
const maxDelay = Number(values["max-delay-ms"]);
let withLeftovers = 0;
for (let t = 0; t < tries; t++) {
  const signal: NodeJS.Signals = t % 2 === 0 ? "SIGINT" : "SIGTERM";
  // Spread over the run: early (start-up), the parallel steps, the outputs.
  const delay = Math.round(100 + ((t * 0.618034) % 1) * maxDelay);
  const { left, status } = await interrupted(signal, delay);
  if (left.length > 0) {
    withLeftovers++;
    process.stdout.write(`try ${t + 1}: ${signal} after ${delay} ms, exit ${status}: left ${left.length} (${left.slice(0, 3).join(", ")})\n`);
  }
}
process.stdout.write(`leftovers: ${withLeftovers} of ${tries} tries (${values.command}${values.workdir ? " -w" : " without -w"})\n`);
process.exitCode = withLeftovers > 0 ? 1 : 0;
