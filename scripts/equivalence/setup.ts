/** The baseline build (a detached git worktree, built once and cached) and the input corpora. */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Corpora } from "./cases.js";

/** Where the commands and their output are written (the log file). */
export type Log = (text: string) => void;

/** Runs a command to completion; throws with its output's tail when it fails. */
export function mustRun(log: Log, command: string, args: string[], cwd: string): string {
  log(`$ (cd ${cwd} && ${command} ${args.join(" ")})`);
  const r = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 1 << 30 });
  log(r.stdout + r.stderr);
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${r.error?.message ?? `exit code ${r.status}`}): ${tail(r.stderr)}`);
  return r.stdout.trim();
}

export function tail(text: string, lines = 5): string {
  return text.trim().split("\n").slice(-lines).join(" | ");
}

/** The CLI of `rev` built in `<cache>/base-<commit>`, reused when an earlier run finished building it. */
export function baselineCli(log: Log, repo: string, cache: string, rev: string): string {
  const commit = mustRun(log, "git", ["rev-parse", "--verify", `${rev}^{commit}`], repo);
  const dir = join(cache, `base-${commit.slice(0, 12)}`);
  const built = join(dir, ".equivalence-built");
  if (!existsSync(built)) {
    if (existsSync(dir)) {
      rmSync(dir, { recursive: true, force: true });
      mustRun(log, "git", ["worktree", "prune"], repo);
    }
    console.log(`building the baseline ${rev} (${commit.slice(0, 12)}) in ${dir} …`);
    mustRun(log, "git", ["worktree", "add", "--detach", dir, commit], repo);
    mustRun(log, "npm", ["ci", "--no-audit", "--no-fund"], dir);
    mustRun(log, "npm", ["run", "build"], dir);
    writeFileSync(built, `${commit}\n`);
  }
  return join(dir, "dist", "bundle", "cli.js");
}

/**
 * The data samples and a web-shape corpus of `docs` documents from the repo's generator, as
 * .vert.zst and as plain .vert cut into two halves at its middle document.
 */
export function makeCorpora(log: Log, repo: string, dir: string, docs: number): Corpora {
  const generator = join(repo, "dist", "scripts", "generate-corpus.js");
  const web = join(dir, `web-${docs}.vert.zst`);
  const plain = join(dir, `web-${docs}.vert`);
  for (const out of [web, plain]) mustRun(log, process.execPath, [generator, "--docs", String(docs), "--shape", "web", "--seed", "1", "-o", out], dir);
  const [webFirst, webSecond] = [1, 2].map((half) => join(dir, `web-${docs}-half${half}.vert`));
  const text = readFileSync(plain);
  const cut = documentStart(text, docs / 2);
  writeFileSync(webFirst, text.subarray(0, cut));
  writeFileSync(webSecond, text.subarray(cut));
  rmSync(plain);
  return { sample: join(repo, "data-samples", "sample.vert.gz"), kjv: join(repo, "data-samples", "kjv-3000.vert.gz"), web, webFirst, webSecond };
}

/** Byte offset of the `<doc` line of document `ordinal` (0-based; the corpus starts with a document). */
function documentStart(text: Buffer, ordinal: number): number {
  let at = 0;
  for (let n = 0; n < ordinal; n++) {
    at = text.indexOf("\n<doc", at) + 1;
    if (at === 0) throw new Error(`the corpus has no document ${ordinal + 1}`);
  }
  return at;
}
