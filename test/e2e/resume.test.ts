import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

afterAll(removeTempDirs);

const CORPUS = "data-samples/kjv-3000.vert.gz";
// Many small tasks, so that kills land inside every phase.
const ARGS = ["--chunk-size", "100000", "--iterations", "60", "--iterations-per-group", "4", "--workers", "2", "--quiet"];

/** The outputs that must not depend on interruptions (pleb-log without its seconds column). */
function outputsOf(outdir: string): string[] {
  const log = readFileSync(join(outdir, "pleb-log.tsv"), "utf8")
    .split("\n")
    .map((line) => line.split("\t").filter((_, k) => k !== 3).join("\t"))
    .join("\n");
  return [readFileSync(join(outdir, "pairs.tsv"), "utf8"), readFileSync(join(outdir, "clusters.tsv"), "utf8"), log];
}

/** Starts a run and kills it with SIGKILL after `ms`; resolves with how it ended (and its stderr, to tell why). */
function runAndKill(args: string[], ms: number): Promise<{ killed: boolean; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), ms);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ killed: signal === "SIGKILL", code, stderr });
    });
  });
}

/** Starts a run and kills it with SIGKILL as soon as `due()` holds (polled every millisecond). */
function runAndKillWhen(args: string[], due: () => boolean): Promise<{ killed: boolean; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: "ignore" });
    const poll = setInterval(() => {
      if (due()) child.kill("SIGKILL");
    }, 1);
    child.on("exit", (code, signal) => {
      clearInterval(poll);
      resolve({ killed: signal === "SIGKILL", code });
    });
  });
}

/** Completion markers of a work directory whose name starts with `prefix`. */
function markersWith(work: string, prefix: string): number {
  const dir = join(work, "markers");
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith(prefix) && name.endsWith(".done")).length : 0;
}

/** A small seeded generator (mulberry32) for the kill times. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The phase a killed run was in, told by the markers it left. */
function phaseReached(work: string): string {
  if (!existsSync(join(work, "chunks.json"))) return "count";
  if (!existsSync(join(work, "markers", "merge.done"))) return "vocabulary/sign/merge";
  if (!existsSync(join(work, "prepare.json"))) return "merge";
  return "pleb/output";
}

describe("runs killed with SIGKILL resume to the same outputs", () => {
  let reference: string[];
  let fullMs: number;
  /** Per phase of an uninterrupted run: its marker prefix, its number of tasks, its name in phaseReached. */
  let taskCounts: [string, number, string][];

  beforeAll(() => {
    const out = tempDir();
    const t0 = performance.now();
    const work = join(tempDir(), "w");
    const r = vertdup(["run", CORPUS, "-o", out, "-w", work, ...ARGS]);
    fullMs = performance.now() - t0;
    expect(r.status).toBe(0);
    reference = outputsOf(out);
    const markers = readdirSync(join(work, "markers"));
    const phases: [string, string][] = [["count-", "count"], ["sign-", "vocabulary/sign/merge"], ["pleb-", "pleb/output"]];
    taskCounts = phases.map(([prefix, phase]) => [prefix, markers.filter((m) => m.startsWith(prefix)).length, phase]);
  });

  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: kills spread over the whole run, then resume`, async () => {
      const next = random(seed);
      const work = join(tempDir(), "w");
      const out = tempDir();
      const args = ["run", CORPUS, "-o", out, "-w", work, ...ARGS];
      let kills = 0;
      // Kill at a random point of each fifth of the run (node start-up included), resuming each time.
      for (let fifth = 0; fifth < 5; fifth++) {
        const ms = ((fifth + next()) / 5) * fullMs;
        const ended = await runAndKill(kills === 0 && fifth === 0 ? args : [...args, "--resume"], ms);
        if (ended.killed) kills++;
        else expect(ended.code, ended.stderr).toBe(0);
      }
      const r = vertdup([...args, "--resume"]);
      expect(r.stderr).not.toMatch(/error/);
      expect(r.status).toBe(0);
      expect(kills).toBeGreaterThan(0);
      expect(outputsOf(out)).toEqual(reference);
    });

    it(`seed ${seed}: a kill inside each phase, whatever the machine's speed, then resume`, async () => {
      const next = random(seed);
      const work = join(tempDir(), "w");
      const out = tempDir();
      const args = ["run", CORPUS, "-o", out, "-w", work, ...ARGS];
      // Kill right after a seeded number of the phase's tasks (at most half of them) left their markers.
      for (const [prefix, total, phase] of taskCounts) {
        const k = 1 + Math.floor(next() * Math.floor(total / 2));
        const ended = await runAndKillWhen([...args, "--resume"], () => markersWith(work, prefix) >= k);
        expect(ended.killed).toBe(true);
        expect(phaseReached(work)).toBe(phase);
      }
      const r = vertdup([...args, "--resume"]);
      expect(r.stderr).not.toMatch(/error/);
      expect(r.status).toBe(0);
      expect(outputsOf(out)).toEqual(reference);
    });
  }

  for (const [step, folder, kind] of [["count", "shards", "counts"], ["sign", "runs", "run"]] as const) {
    it(`SIGKILL right after the executor marks ${step} task 3: the finished tasks are kept, the resumed outputs are byte-identical`, () => {
      const work = join(tempDir(), "w");
      const out = tempDir();
      const args = ["run", CORPUS, "-o", out, "-w", work, ...ARGS];
      const killed = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, VERTDUP_FAULT: `kill:marker:${step}-000002` } });
      expect(killed.signal).toBe("SIGKILL");
      const marked = markersWith(work, `${step}-`);
      expect(marked).toBeGreaterThan(0);
      expect(marked).toBeLessThan(taskCounts.find(([prefix]) => prefix === `${step}-`)![1]);
      // The marker is written on the coordinator after the worker's files are in place.
      const kept = statSync(join(work, folder, `000002.${kind}.zst`)).mtimeMs;
      const r = vertdup([...args, "--resume"]);
      expect(r.status, r.stderr).toBe(0);
      if (step === "count") expect(statSync(join(work, folder, `000002.${kind}.zst`)).mtimeMs).toBe(kept);
      expect(outputsOf(out)).toEqual(reference);
    });
  }

  it("a worker thread that throws stops the run with a clear error; the work directory resumes", () => {
    const work = join(tempDir(), "w");
    const out = tempDir();
    const args = ["run", CORPUS, "-o", out, "-w", work, ...ARGS];
    const failed = spawnWithEnv(args, { VERTDUP_FAULT: "signShard" });
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toMatch(/worker task 'sign' failed: fault injected into signShard/);
    const resumed = vertdup([...args, "--resume"]);
    expect(resumed.status).toBe(0);
    expect(outputsOf(out)).toEqual(reference);
  });

  it("refuses to resume with other options or inputs, and says why", () => {
    const work = join(tempDir(), "w");
    expect(vertdup(["prepare", CORPUS, "-w", work, "--quiet"]).status).toBe(0);
    const other = vertdup(["prepare", CORPUS, "-w", work, "--quiet", "--resume", "--bits", "512"]);
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(/refusing to resume: the work directory was made with other --bits \(1024 there, 512 now\)/);
    const input = vertdup(["prepare", "data-samples/sample.vert.gz", "-w", work, "--quiet", "--resume"]);
    expect(input.status).toBe(1);
    expect(input.stderr).toMatch(/refusing to resume: .*inputs/);
  });

  it("records the projection and refuses to resume with the other one; older work directories are float32", () => {
    const work = join(tempDir(), "w");
    const small = "data-samples/sample.vert.gz";
    expect(vertdup(["prepare", small, "-w", work, "--quiet"]).status).toBe(0);
    const prepared = JSON.parse(readFileSync(join(work, "prepare.json"), "utf8"));
    expect(prepared.options.projection).toBe("int8");
    expect(prepared.projectionFormat).toBe(2);
    const other = vertdup(["prepare", small, "-w", work, "--quiet", "--resume", "--projection", "float32"]);
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(/vertdup: error: .*refusing to resume: the work directory was made with other --projection \(int8 there, float32 now\): give the options it was made with, or run without --resume to start anew$/m);
    // A work directory of vertdup 0.3.0's int8 vectors: no projectionFormat in config.json.
    const int8Config = JSON.parse(readFileSync(join(work, "config.json"), "utf8"));
    expect(int8Config.projectionFormat).toBe(2);
    delete int8Config.projectionFormat;
    writeFileSync(join(work, "config.json"), JSON.stringify(int8Config));
    const old = vertdup(["prepare", small, "-w", work, "--quiet", "--resume"]);
    expect(old.status).toBe(1);
    expect(old.stderr).toMatch(/refusing to resume: the work directory was made with other int8 vectors \(vertdup 0.3.0's quantised polar Gaussians there, drawn from the quantised Gaussian, format 2 now: prepare the corpus anew\)/);
    // A work directory from before --projection: float32 signatures, no projection in config.json.
    expect(vertdup(["prepare", small, "-w", work, "--quiet", "--projection", "float32"]).status).toBe(0);
    const config = JSON.parse(readFileSync(join(work, "config.json"), "utf8"));
    delete config.prepare.projection;
    writeFileSync(join(work, "config.json"), JSON.stringify(config));
    expect(vertdup(["prepare", small, "-w", work, "--quiet", "--resume"]).stderr).toMatch(/--projection \(float32 there, int8 now\)/);
    expect(vertdup(["prepare", small, "-w", work, "--quiet", "--resume", "--projection", "float32"]).status).toBe(0);
  });
});

function spawnWithEnv(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: { ...process.env, ...env } });
  return { status: r.status, stderr: r.stderr };
}
