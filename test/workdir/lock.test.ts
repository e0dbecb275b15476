import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { admitTask, lockWorkdir, releaseSlurmRun } from "../../src/workdir/lock.js";

const dirs: string[] = [];
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), "vertdup-lock-"));
  dirs.push(d);
  return d;
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("lockWorkdir", () => {
  it("of many simultaneous takers exactly one wins; released, the next one may", async () => {
    const w = dir();
    const tries = await Promise.allSettled(Array.from({ length: 12 }, () => lockWorkdir(w)));
    const won = tries.filter((t) => t.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const t of tries) if (t.status === "rejected") expect(String(t.reason)).toMatch(/in use by another vertdup run \(pid \d+@/);
    await (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof lockWorkdir>>>).value.release();
    await (await lockWorkdir(w)).release();
  });

  it("a Slurm lock outlives release and admits only tasks with its token, until the run ends", async () => {
    const w = dir();
    const lock = await lockWorkdir(w, { slurm: true });
    await lock.release();
    await admitTask(w, lock.token);
    await expect(admitTask(w, "other")).rejects.toThrow(/token other\) no longer holds the work directory: it is now held by pid/);
    await expect(lockWorkdir(w)).rejects.toThrow(/in use by the Slurm run submitted by/);
    await expect(lockWorkdir(w, { slurm: true, slurmRunOver: async () => false })).rejects.toThrow(/in use by the Slurm run/);
    const next = await lockWorkdir(w, { slurm: true, slurmRunOver: async () => true });
    expect(JSON.parse(readFileSync(join(w, "vertdup.lock"), "utf8")).token).toBe(next.token);
    await releaseSlurmRun(w, lock.token);
    await admitTask(w, next.token);
    await releaseSlurmRun(w, next.token);
    await expect(admitTask(w, next.token)).rejects.toThrow(/nobody holds it now/);
  });
});
