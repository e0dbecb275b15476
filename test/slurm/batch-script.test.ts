import { describe, expect, it } from "vitest";
import { renderBatchScript, shellWord } from "../../src/slurm/batch-script.js";
import { runJobs } from "../../src/slurm/submit.js";

describe("batch scripts", () => {
  const settings = { cpusPerTask: 4, extra: ["--account=corpora"], logDir: "/shared/w/slurm/logs", partition: "long", arrayParallelism: 3, time: "02:00:00", mem: "8G" };

  it("render an array job with its Slurm options and the task command", () => {
    const text = renderBatchScript({ name: "count", arraySize: 5, command: ["/usr/bin/node", "/opt/vertdup/dist/src/cli.js", "task", "count", "-w", "/shared/w", "--index", "$SLURM_ARRAY_TASK_ID", "--count", "5"] }, settings);
    expect(text.split("\n")).toEqual([
      "#!/usr/bin/env bash",
      "#SBATCH --job-name=vertdup-count",
      "#SBATCH --cpus-per-task=4",
      "#SBATCH --array=0-4%3",
      "#SBATCH --output=/shared/w/slurm/logs/%x-%A_%a.log",
      "#SBATCH --partition=long",
      "#SBATCH --time=02:00:00",
      "#SBATCH --mem=8G",
      "#SBATCH --account=corpora",
      "set -euo pipefail",
      "exec /usr/bin/node /opt/vertdup/dist/src/cli.js task count -w /shared/w --index $SLURM_ARRAY_TASK_ID --count 5",
      "",
    ]);
  });

  it("quote words a shell would split", () => {
    expect(shellWord("/a b/c")).toBe("'/a b/c'");
    expect(shellWord("it's")).toBe("'it'\\''s'");
    expect(shellWord("$SLURM_ARRAY_TASK_ID")).toBe("$SLURM_ARRAY_TASK_ID");
  });

  it("chain the phases of a run, arrays where the work splits", () => {
    const jobs = runJobs("/shared/w", { pleb: { threshold: 0.9, beam: 50, shiftCount: 70, iterations: 100, seed: 1 }, iterationsPerGroup: 10, keep: "longest", outdir: "/shared/o", tasks: 6, token: "t0" }, 10);
    expect(jobs.map((j) => [j.name, j.arraySize])).toEqual([
      ["count", 6],
      ["vocabulary", undefined],
      ["sign", 6],
      ["merge", undefined],
      ["pleb", 10],
      ["output", undefined],
    ]);
    expect(jobs[4].command.slice(2)).toEqual(["task", "pleb", "-w", "/shared/w", "--index", "$SLURM_ARRAY_TASK_ID", "--count", "10", "--token", "t0"]);
    expect(jobs[5].command.slice(2)).toEqual(["task", "output", "-w", "/shared/w", "--token", "t0"]);
  });
});
