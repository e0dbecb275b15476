import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { VertdupError } from "../../core/errors.js";

const run = promisify(execFile);

/** Submits a batch script, after the given jobs succeeded; returns the job id. */
export async function sbatch(script: string, afterOk: readonly string[]): Promise<string> {
  const args = ["--parsable"];
  if (afterOk.length > 0) args.push(`--dependency=afterok:${afterOk.join(":")}`, "--kill-on-invalid-dep=yes");
  args.push(script);
  try {
    const { stdout } = await run("sbatch", args);
    const id = stdout.trim().split(";")[0];
    if (!/^\d+$/.test(id)) throw new Error(`unexpected sbatch output: ${stdout}`);
    return id;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new VertdupError(`sbatch ${script} failed: ${why}`);
  }
}

/** Job ids of the given jobs still known to the scheduler (pending or running). */
export async function activeJobs(ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  try {
    const { stdout } = await run("squeue", ["-h", "-o", "%F", "-j", ids.join(",")]);
    return [...new Set(stdout.split("\n").map((l) => l.trim()).filter((l) => l.length > 0))];
  } catch {
    return []; // squeue fails on ids it no longer knows: none of them is active
  }
}

/** Slurm's default MaxArraySize, assumed where `scontrol` cannot say (a dry run away from the cluster). */
const DEFAULT_MAX_ARRAY_SIZE = 1001;

/** The cluster's MaxArraySize (`scontrol show config`): array task ids must stay below it. */
export async function maxArraySize(): Promise<number> {
  try {
    const { stdout } = await run("scontrol", ["show", "config"]);
    const m = /^MaxArraySize\s*=\s*(\d+)/m.exec(stdout);
    return m === null ? DEFAULT_MAX_ARRAY_SIZE : Number(m[1]);
  } catch {
    return DEFAULT_MAX_ARRAY_SIZE;
  }
}
