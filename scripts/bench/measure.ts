import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export interface Measured {
  seconds: number;
  peakRssMiB: number;
  /** User + system CPU time of the process, all its threads (absent for in-process measures). */
  cpuSeconds?: number;
}

const HOOK = fileURLToPath(new URL("./rss-hook.js", import.meta.url));

/**
 * Runs `node <args>` as a child process and measures its wall time, peak RSS and CPU time
 * (the child's own getrusage, written by rss-hook at exit). Throws with the child's
 * stderr when it fails.
 */
export async function measureNode(args: readonly string[]): Promise<Measured> {
  const rssFile = join(tmpdir(), `vertdup-bench-rss-${process.pid}-${Date.now()}`);
  const t0 = performance.now();
  const stderr: Buffer[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", HOOK, ...args], {
      env: { ...process.env, VERTDUP_BENCH_RSS_FILE: rssFile },
      stdio: ["ignore", "ignore", "pipe"],
    });
    child.stderr.on("data", (b: Buffer) => stderr.push(b));
    child.once("error", reject);
    child.once("close", resolve);
  });
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`node ${args.join(" ")} failed (${code}):\n${Buffer.concat(stderr).toString()}`);
  const [kib, user, system] = readFileSync(rssFile, "utf8").split(" ").map(Number);
  rmSync(rssFile, { force: true });
  return { seconds, peakRssMiB: Math.round(kib / 1024), cpuSeconds: Number(((user + system) / 1e6).toFixed(3)) };
}

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}
