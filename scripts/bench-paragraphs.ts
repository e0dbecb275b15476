/**
 * Throughput and memory of `vertdup paragraphs` (not a test).
 *
 *   node dist/scripts/bench-paragraphs.js <corpus.vert> [--workers 1,2] [--repeat 3] [--memory 256M] [--chunk-size 1048576] [--cli dist/bundle/cli.js]
 *
 * Runs the CLI as a child process for each worker count `--repeat` times (output to a
 * temporary .vert, removed), and prints per run wall seconds, tokens/s, peak RSS of the
 * process (worker threads included; from /usr/bin/time when present, else the report's
 * phase peaks) and its CPU seconds (user + system, /usr/bin/time only: a steadier measure
 * on a shared machine), then the medians per worker count. `--cli` runs another build's CLI
 * (a before/after comparison). Make the corpus with
 * `node dist/scripts/generate-corpus.js --docs 300000 -o big.vert` (≈100 M tokens).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    workers: { type: "string", default: "1,2" },
    repeat: { type: "string", default: "3" },
    memory: { type: "string", default: "256M" },
    "chunk-size": { type: "string", default: String(1 << 20) },
    cli: { type: "string" },
  },
});
if (positionals.length === 0) throw new Error("usage: bench-paragraphs <corpus.vert> [--workers 1,2] [--repeat 3]");

const cli = values.cli ?? join(import.meta.dirname, "..", "bundle", "cli.js");
const dir = mkdtempSync(join(tmpdir(), "bench-paragraphs-"));
const timeBin = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  for (const workers of values.workers.split(",").map(Number)) {
    const rates: number[] = [];
    const rss: number[] = [];
    const walls: number[] = [];
    const cpus: number[] = [];
    for (let r = 0; r < Number(values.repeat); r++) {
      const out = join(dir, "out.vert");
      const args = [cli, "paragraphs", ...positionals, "-o", out, "--workers", String(workers), "--quiet", "--memory", values.memory, "--chunk-size", values["chunk-size"]];
      const t0 = performance.now();
      const run = timeBin ? spawnSync(timeBin, ["-f", "MAXRSS %M CPU %U %S", process.execPath, ...args], { encoding: "utf8" }) : spawnSync(process.execPath, args, { encoding: "utf8" });
      const seconds = (performance.now() - t0) / 1000;
      if (run.status !== 0) throw new Error(`run failed: ${run.stderr}`);
      const report = JSON.parse(readFileSync(`${out}.report.json`, "utf8"));
      const phases = Object.entries(report.phases as Record<string, { seconds: number; peakRssMiB: number }>);
      const peak = Number(/MAXRSS (\d+)/.exec(run.stderr)?.[1] ?? 0) / 1024 || Math.max(...phases.map(([, p]) => p.peakRssMiB));
      const rate = report.counts.tokensIn / seconds;
      const cpu = /CPU ([\d.]+) ([\d.]+)/.exec(run.stderr);
      rates.push(rate);
      rss.push(peak);
      walls.push(seconds);
      if (cpu) cpus.push(Number(cpu[1]) + Number(cpu[2]));
      console.log(
        `workers ${workers} run ${r + 1}: ${seconds.toFixed(2)} s, ${(rate / 1e6).toFixed(2)} M tokens/s, peak RSS ${peak.toFixed(0)} MiB, ${report.mode}${cpu ? `, CPU ${(Number(cpu[1]) + Number(cpu[2])).toFixed(1)} s` : ""}; ` +
          phases.map(([name, p]) => `${name} ${p.seconds.toFixed(2)} s`).join(", "),
      );
      rmSync(out, { force: true });
    }
    const cpuText = cpus.length > 0 ? `, CPU ${median(cpus).toFixed(2)} s` : "";
    console.log(`workers ${workers}: median ${median(walls).toFixed(2)} s wall${cpuText}, ${(median(rates) / 1e6).toFixed(2)} M tokens/s, peak RSS ${median(rss).toFixed(0)} MiB`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
