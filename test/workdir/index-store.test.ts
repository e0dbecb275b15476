import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkAgainstUse, collectGarbage, INDEX_DATA, indexContent, IndexUpdate, newIndex, readIndex, requireCompatible } from "../../src/workdir/index-store.js";

const fresh = () => mkdtempSync(join(tmpdir(), "vertdup-index-"));

describe("index store", () => {
  it("records each batch with its ordinals and keeps files not rewritten", async () => {
    const dir = fresh();
    const base = new IndexUpdate(dir, newIndex("exact", { "--column": 0 }), ["base.vert"], [null], 10);
    await writeFile(await base.file("digests", "digests.bin"), "base digests");
    await writeFile(await base.file("ids", "ids.txt"), "base ids");
    await base.commit();
    const one = await readIndex(dir);
    expect(one.batches.map((b) => [b.batch, b.firstOrdinal, b.documents, b.inputs])).toEqual([[0, 0, 10, ["base.vert"]]]);

    const next = new IndexUpdate(dir, one, ["batch1.vert"], [null], 4);
    await writeFile(await next.file("digests", "digests.bin"), "base+batch digests");
    await next.commit();
    const two = await readIndex(dir);
    expect(two.documents).toBe(14);
    expect(two.batches.map((b) => [b.batch, b.firstOrdinal, b.documents])).toEqual([[0, 0, 10], [1, 10, 4]]);
    // The digests were rewritten in the new generation and the old file removed; the ids kept.
    expect(two.files.digests).not.toBe(one.files.digests);
    expect(two.files.ids).toBe(one.files.ids);
    expect(existsSync(join(dir, one.files.digests))).toBe(false);
    const content = await indexContent(dir);
    expect(content.get(two.files.digests)?.toString()).toBe("base+batch digests");
    expect(content.get(two.files.ids)?.toString()).toBe("base ids");
  });

  it("an update that never commits leaves the old index, and its files go at the next update", async () => {
    const dir = fresh();
    const base = new IndexUpdate(dir, newIndex("exact", {}), ["a"], [null], 1);
    await writeFile(await base.file("digests", "d.bin"), "old");
    await base.commit();
    const before = await indexContent(dir);
    const crashed = new IndexUpdate(dir, await readIndex(dir), ["b"], [null], 1);
    await writeFile(await crashed.file("digests", "d.bin"), "half");
    expect(await indexContent(dir)).toEqual(before);
    await collectGarbage(dir, await readIndex(dir));
    expect(readdirSync(join(dir, INDEX_DATA))).toEqual(["g0001"]);
  });

  it("names every differing option, and a different method", () => {
    const index = newIndex("minhash", { "--shingle-size": 5, "--num-perm": 128 });
    expect(() => requireCompatible("base.idx", index, "minhash", { "--shingle-size": 3, "--num-perm": 128, "--column": 0 })).toThrow(
      "base.idx: options incompatible with the index (--column: index unset, this run 0; --shingle-size: index 5, this run 3)",
    );
    expect(() => requireCompatible("base.idx", index, "exact", {})).toThrow("base.idx: an index of --method minhash, not exact");
    expect(() => requireCompatible("base.idx", index, "minhash", { "--num-perm": 128, "--shingle-size": 5 })).not.toThrow();
  });

  it("says why a directory is not an index", async () => {
    const dir = fresh();
    await expect(readIndex(join(dir, "missing"))).rejects.toThrow("no such index");
    await expect(readIndex(dir)).rejects.toThrow("not an index (no index.json");
    writeFileSync(join(dir, "index.json"), JSON.stringify({ ...newIndex("exact", {}), files: { digests: "index/g0001/d.bin" } }));
    await expect(readIndex(dir)).rejects.toThrow("index file index/g0001/d.bin is missing");
    await writeFile(join(dir, "index.json"), "{");
    await expect(readIndex(dir)).rejects.toThrow("unreadable index manifest");
    expect(await readFile(join(dir, "index.json"), "utf8")).toBe("{");
  });

  it("refuses the same misuses of --against for every command", () => {
    const dir = fresh();
    expect(() => checkAgainstUse([], { update: true })).toThrow("--update appends to one index: give exactly one --against (none given)");
    expect(() => checkAgainstUse(["a", "b"], { update: true })).toThrow("give exactly one --against (2 given)");
    expect(() => checkAgainstUse([dir, `${dir}/`], { update: false })).toThrow(`${dir}/: the index is given twice with --against`);
    expect(() => checkAgainstUse([dir], { update: false, resume: true })).toThrow("--resume cannot continue a run with --against");
    expect(() => checkAgainstUse([dir], { update: true, workdir: join(dir, ".") })).toThrow(`${dir}: the --against index is also the run's work directory (-w)`);
    expect(() => checkAgainstUse([dir], { update: true, workdir: join(dir, "other") })).not.toThrow();
    expect(() => checkAgainstUse([], { update: false, resume: true })).not.toThrow();
  });
});
