import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The CLI as installed: the bundle of the compiled one (npm test builds before running vitest). */
export const CLI = resolve("dist/bundle/cli.js");
/** The compiled CLI before bundling: one ES module per source file. */
export const UNBUNDLED_CLI = resolve("dist/src/cli.js");

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `vertdup args…` as a user would, optionally feeding standard input. */
export function vertdup(args: string[], input?: Buffer | string): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], { input, encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `vertdup args…` without blocking the test thread (a run of seconds would stall vitest's own
 * messages), with `env` added to the environment; `signal` names the signal that ended it.
 */
export async function vertdupAsync(args: string[], input?: Buffer, env: Record<string, string> = {}): Promise<CliResult & { signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: "0", ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => (stdout += c));
  child.stderr.on("data", (c) => (stderr += c));
  child.stdin.end(input);
  const [status, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on("close", (code, sig) => resolve([code, sig])));
  return { status, signal, stdout, stderr };
}

const made: string[] = [];

/** A fresh temporary directory, removed by removeTempDirs(). */
export function tempDir(prefix = "vertdup-e2e-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

export function removeTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Rows of a TSV file without its header. */
export function readTsv(path: string): string[][] {
  const lines = readFileSync(path, "utf8").trimEnd().split("\n");
  return lines.slice(1).filter((l) => l.length > 0).map((l) => l.split("\t"));
}
