import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Why the Slurm tests cannot run here, or null when a cluster answers. */
export function slurmUnavailable(): string | null {
  const sinfo = spawnSync("sinfo", ["-h", "-o", "%T"], { encoding: "utf8" });
  if (sinfo.error !== undefined) return "sinfo is not installed (scripts/slurm/test-cluster.sh install && start)";
  if (sinfo.status !== 0) return `no Slurm controller answers (sinfo: ${sinfo.stderr.trim()})`;
  if (!/idle|mixed|alloc/.test(sinfo.stdout)) return `no usable Slurm node (sinfo: ${sinfo.stdout.trim()})`;
  return null;
}

/** The job ids of a work directory's last submission. */
export function jobIds(workdir: string): string[] {
  return Object.values(JSON.parse(readFileSync(join(workdir, "slurm", "jobs.json"), "utf8")) as Record<string, string>);
}

/** Whether any of the jobs is still queued or running. */
export function active(ids: string[]): boolean {
  const q = spawnSync("squeue", ["-h", "-o", "%F", "-j", ids.join(",")], { encoding: "utf8" });
  return q.status === 0 && q.stdout.trim().length > 0;
}

export async function waitFor(condition: () => boolean, seconds: number): Promise<void> {
  const until = Date.now() + seconds * 1000;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`still waiting after ${seconds} s`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** The token of the lock a submission took for its jobs (a task run by hand carries it). */
export function lockToken(workdir: string): string {
  return (JSON.parse(readFileSync(join(workdir, "vertdup.lock"), "utf8")) as { token: string }).token;
}

/** The jobs of a submission in order, from its batch scripts: name and array size (1 for a single job). */
export function jobs(work: string): { name: string; size: number }[] {
  const dir = join(work, "slurm");
  const scripts = readdirSync(dir).filter((f) => f.endsWith(".sbatch")).sort((a, b) => parseInt(a) - parseInt(b));
  return scripts.map((f) => {
    const array = /^#SBATCH --array=0-(\d+)$/m.exec(readFileSync(join(dir, f), "utf8"));
    return { name: f.replace(/^\d+-|\.sbatch$/g, ""), size: array === null ? 1 : Number(array[1]) + 1 };
  });
}
