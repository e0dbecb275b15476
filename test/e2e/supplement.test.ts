import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { indexContent } from "../../src/workdir/index-store.js";
import { writeBatches } from "../helpers/batches.js";
import { CLI, removeTempDirs, tempDir, vertdupAsync } from "../helpers/cli.js";

afterAll(removeTempDirs);

const dir = tempDir("vertdup-supplement-");
const [BASE, BATCH1, BATCH2] = writeBatches(dir, [40, 20, 20]);
const MINHASH = ["--method", "minhash", "--quiet", "--no-report"];

async function ok(args: string[]): Promise<void> {
  const r = await vertdupAsync(args);
  expect(r.stderr).not.toMatch(/error/);
  expect(r.status).toBe(0);
}

async function refused(args: string[], message: RegExp): Promise<void> {
  const r = await vertdupAsync(args);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(message);
}

describe("run --against / --update (CLI)", () => {
  const index = join(dir, "base.idx");

  it("refuses what issue 15 refuses, naming the reason", async () => {
    await ok(["run", BASE, "-w", index, "-o", join(dir, "out0"), ...MINHASH]);
    const out = join(dir, "refused");
    await refused(["run", BATCH1, "-o", out, "--update", ...MINHASH], /--update appends to one index: give exactly one --against \(none given\)/);
    await refused(["run", BATCH1, "-o", out, "--against", index, "--against", index, "--update", ...MINHASH], /give exactly one --against \(2 given\)/);
    await refused(["run", BATCH1, "-o", out, "--against", index, "--method", "exact", "--quiet"], /an index of --method minhash, not exact/);
    await refused(["run", BATCH1, "-o", out, "--against", index, "--shingle-size", "3", ...MINHASH], /--shingle-size: index 5, this run 3/);
    await refused(["run", BATCH1, "-o", out, "-w", join(dir, "w"), "--resume", "--against", index, ...MINHASH], /--resume/);
    await refused(["run", BATCH1, "-o", out, "-w", index, "--against", index, ...MINHASH], /also the run.s work directory/);
    await refused(["run", BATCH1, "-o", out, "-w", index, "--against", index, "--update", ...MINHASH], /also the run.s work directory/);
    await refused(["run", BATCH1, "-o", out, "--against", join(dir, "out0"), ...MINHASH], /not an index \(no index.json/);
    // An update waits for nobody: an index in use (its lock held by a live process) is refused.
    const lock = join(index, "vertdup.lock");
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString(), token: "test", slurm: false }));
    await refused(["run", BATCH1, "-o", out, "--against", index, "--update", ...MINHASH], /in use by another vertdup run/);
    // A read-only run too: no update may change the index while it is read.
    await refused(["run", BATCH1, "-o", out, "--against", index, ...MINHASH], /in use by another vertdup run/);
    rmSync(lock);
    expect([...(await indexContent(index)).keys()]).toEqual(["index.json", "index/g0001/batch0.sets0.f64", "index/g0001/batch0.zst", "index/g0001/edges.zst"]);
  });

  it("a SIGKILL anywhere in an update leaves the old index or the new one, byte for byte", async () => {
    const env = { ...process.env, SOURCE_DATE_EPOCH: "1700000000" };
    const run = (idx: string, fault?: string) =>
      spawnSync(process.execPath, [CLI, "run", BATCH1, "-o", join(dir, "kill-out"), "--tmp-dir", dir, "--against", idx, "--update", "--chunk-size", "4096", ...MINHASH], {
        encoding: "utf8",
        env: fault === undefined ? env : { ...env, VERTDUP_FAULT: fault },
      });
    const base = join(dir, "kill-base.idx");
    const made = spawnSync(process.execPath, [CLI, "run", BASE, "-w", base, "-o", join(dir, "kill-out0"), "--chunk-size", "4096", ...MINHASH], { env });
    expect(made.status).toBe(0);
    const old = await indexContent(base);
    const reference = join(dir, "kill-reference.idx");
    cpSync(base, reference, { recursive: true });
    expect(run(reference).status).toBe(0);
    const updated = await indexContent(reference);
    expect(updated.get("index.json")).not.toEqual(old.get("index.json"));
    for (const [point, expected] of [["kill:index:files", old], ["kill:index:before-commit", old], ["kill:index:after-commit", updated]] as const) {
      const idx = join(dir, `kill-${point.replace(/:/g, "-")}.idx`);
      cpSync(base, idx, { recursive: true });
      const killed = run(idx, point);
      expect(killed.signal).toBe("SIGKILL");
      expect(await indexContent(idx)).toEqual(expected);
      // The next update takes over the dead run's lock, and gives the updated index.
      if (expected === old) {
        expect(run(idx).status).toBe(0);
        expect(await indexContent(idx)).toEqual(updated);
      }
    }
  });

  it("batches add up: the second batch is compared with base + batch 1", async () => {
    const grown = join(dir, "grown.idx");
    await ok(["run", BASE, "-w", grown, "-o", join(dir, "out-grown"), ...MINHASH]);
    await ok(["run", BATCH1, "-o", join(dir, "out1"), "--against", grown, "--update", ...MINHASH]);
    await ok(["run", BATCH2, "-o", join(dir, "out2"), "--against", grown, "--update", ...MINHASH]);
    const content = await indexContent(grown);
    const manifest = JSON.parse(String(content.get("index.json")));
    expect(manifest.batches.map((b: { documents: number; firstOrdinal: number }) => [b.documents, b.firstOrdinal])).toEqual([[40, 0], [20, 40], [20, 60]]);
    expect(manifest.documents).toBe(80);
    // --keep defaults to older with --against.
    expect(JSON.parse(readFileSync(join(dir, "out2", "manifest.json"), "utf8")).clusters.keep).toBe("older");
  });

  it("refuses to append a batch the index holds already (its bytes, under any name), naming the batch; warns without --update", async () => {
    const grown = join(dir, "grown.idx");
    const before = await indexContent(grown);
    const created = JSON.parse(String(before.get("index.json"))).batches[1].created as string;
    const again = join(dir, "batch1-again.vert");
    cpSync(BATCH1, again);
    const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    await refused(["run", again, "-o", join(dir, "out-again"), "--against", grown, "--update", ...MINHASH], new RegExp(`${escaped(again)} has the same bytes as ${escaped(BATCH1)}, batch 1 of ${escaped(grown)} \\(added ${escaped(created)}\\): refusing to append it again`));
    const fresh = join(dir, "fresh.vert");
    writeFileSync(fresh, '<doc id="fresh">\n<p>\nnever seen before\n</p>\n</doc>\n');
    await refused(["run", fresh, BASE, "-o", join(dir, "out-again"), "--against", grown, "--update", ...MINHASH], /batch0.vert has the same bytes as .*batch0.vert, batch 0 of/);
    expect(await indexContent(grown)).toEqual(before);
    const asked = await vertdupAsync(["run", again, "-o", join(dir, "out-again"), "--against", grown, ...MINHASH]);
    expect(asked.status).toBe(0);
    expect(asked.stderr).toContain(`warning: ${again} has the same bytes as ${BATCH1}, batch 1 of ${grown} (added ${created}): its documents are in the index already`);
  });
});
