/** Submitting to the Slurm test cluster (scripts/slurm/test-cluster.sh) and waiting for the jobs. */
import { spawnSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";

/** Why no Slurm run can be made here, or null when a cluster answers with a usable node. */
export function slurmUnavailable(): string | null {
  const sinfo = spawnSync("sinfo", ["-h", "-o", "%T"], { encoding: "utf8" });
  if (sinfo.error !== undefined) return "sinfo is not installed (bash scripts/slurm/test-cluster.sh install && bash scripts/slurm/test-cluster.sh start)";
  if (sinfo.status !== 0) return `no Slurm controller answers (sinfo: ${sinfo.stderr.trim()})`;
  if (!/idle|mixed|alloc/.test(sinfo.stdout)) return `no usable Slurm node (sinfo: ${sinfo.stdout.trim()})`;
  return null;
}

/**
 * Waits until `vertdup slurm status -w <workdir>` says no job of the run is left, and returns
 * that status: every phase line ends in "done" when the run succeeded.
 */
export async function waitForRun(status: () => string, minutes: number): Promise<string> {
  const until = Date.now() + minutes * 60_000;
  for (;;) {
    const text = status();
    if (text.includes("no job of this run is queued or running")) return text;
    if (Date.now() > until) throw new Error(`still running after ${minutes} min: ${text.replace(/\n/g, " | ")}`);
    await sleep(2000);
  }
}

/** The phases of a finished run's status that are not done, e.g. `search 0/1`. */
export function unfinishedPhases(status: string): string[] {
  return status
    .split("\n")
    .filter((line) => /^\S+\s+\d+\/\d+/.test(line) && !line.endsWith("done"))
    .map((line) => line.replace(/\s+/g, " "));
}
