import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { lockWorkdir } from "../../src/workdir/lock.js";
import { removeTempDirs, tempDir } from "../helpers/cli.js";
import { inProcess } from "../helpers/in-process.js";
import { jobs, lockToken } from "../helpers/slurm.js";
import { makeCorpus } from "../helpers/vert.js";

// #31 item 4 for every command writing an -o directory: a second writer into it is refused
// while the first holds it (run, calibrate and pleb: test/e2e/durable-31.test.ts).

afterAll(removeTempDirs);
afterEach(() => vi.unstubAllEnvs());

const HELD = /: in use by another vertdup run \(pid \d+@.*\): wait for it to end or give another output directory \(-o\)/;

function corpus(): string {
  const path = join(tempDir(), "c.vert");
  writeFileSync(path, makeCorpus(8, 3));
  return path;
}

describe("an -o held by another writer is refused", () => {
  it("short-long", async () => {
    const c = corpus();
    const out = join(tempDir(), "o");
    mkdirSync(out);
    const held = await lockWorkdir(out);
    const r = await inProcess(["short-long", c, "-o", out, "--workers", "1", "--quiet"]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(HELD);
    expect(existsSync(join(out, "short-long.tsv"))).toBe(false);
    await held.release();
    const again = await inProcess(["short-long", c, "-o", out, "--workers", "1", "--quiet"]);
    expect(again.status, again.stderr).toBe(0);
    expect(existsSync(join(out, "vertdup.lock"))).toBe(false);
  });

  it("slurm run: the -o is held for the jobs, refused to another submission and to a local run, released by the last job", async () => {
    // No Slurm commands: a client without a controller waits 10 s for scontrol's answer at each submission.
    vi.stubEnv("PATH", tempDir());
    const c = corpus();
    const base = tempDir();
    const [w1, w2, out] = ["w1", "w2", "o"].map((d) => join(base, d));
    const args = (w: string) => ["slurm", "run", c, "-w", w, "-o", out, "--method", "exact", "--dry-run"];
    const first = await inProcess(args(w1));
    expect(first.status, first.stderr).toBe(0);
    expect(lockToken(out)).toBe(lockToken(w1));
    const second = await inProcess(args(w2));
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`${out}: in use by the Slurm run submitted by pid ${process.pid}@`);
    expect(second.stderr).toContain(`(vertdup slurm status -w ${w1}); once none of its jobs is queued or running, submit that run again (-w ${w1}), or remove ${join(out, "vertdup.lock")}`);
    // The refused submission keeps no lock of its own.
    expect(existsSync(join(w2, "vertdup.lock"))).toBe(false);
    const local = await inProcess(["run", c, "-o", out, "--method", "exact", "--quiet"]);
    expect(local.status).toBe(1);
    expect(local.stderr).toMatch(/in use by the Slurm run submitted by/);
    // Submitted again into its own work directory, the run takes its -o again.
    const again = await inProcess(args(w1));
    expect(again.status, again.stderr).toBe(0);
    const token = lockToken(w1);
    expect(lockToken(out)).toBe(token);
    for (const { name, size } of jobs(w1)) {
      for (let index = 0; index < size; index++) {
        const t = await inProcess(["task", name, "-w", w1, "--index", String(index), "--count", String(size), "--token", token]);
        expect(t.status, `${name} ${index}: ${t.stderr}`).toBe(0);
      }
    }
    expect(existsSync(join(out, "manifest.json"))).toBe(true);
    expect(existsSync(join(out, "vertdup.lock"))).toBe(false);
    expect(existsSync(join(w1, "vertdup.lock"))).toBe(false);
  }, 60_000);
});
