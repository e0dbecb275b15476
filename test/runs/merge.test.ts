import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mergeRuns } from "../../src/runs/merge.js";
import { writeRunFile } from "../../src/util/run-file.js";
import { compareSigRecords, type SigRecord } from "../../src/sketch/signature-record.js";
import { storeRecords, writeSignatureStore } from "../../src/runs/signature-store.js";
import { createWorkdir, storeFiles } from "../../src/workdir/layout.js";
import { Sfc32 } from "../../src/sketch/random-vectors.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-merge-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("mergeRuns", () => {
  it("merges more runs than the fan-in through intermediate runs, in order, losing no record", async () => {
    const r = new Sfc32(3, 3);
    const all: SigRecord[] = [];
    const paths: string[] = [];
    for (let f = 0; f < 9; f++) {
      const recs = Array.from({ length: 300 }, (_, k) => ({ d: f * 300 + k, s: Uint32Array.from({ length: 32 }, () => r.nextUint32()) }));
      recs.sort(compareSigRecords);
      all.push(...recs);
      paths.push(join(dir, `${f}.run.zst`));
      await writeRunFile(paths[f], recs);
    }
    const merged: SigRecord[] = [];
    for await (const { stride, values } of mergeRuns(paths, (l, g) => join(dir, `m-${l}-${g}.run`), 4)) {
      expect(stride).toBe(33);
      for (let at = 0; at < values.length; at += stride) merged.push({ d: values[at], s: values.slice(at + 1, at + stride) });
    }
    all.sort(compareSigRecords);
    expect(merged.map((x) => x.d)).toEqual(all.map((x) => x.d));
    expect(merged.map((x) => Array.from(x.s))).toEqual(all.map((x) => Array.from(x.s)));
  });

  it("keeps runs with equal signatures in run order within an ordinal tie, and skips empty runs", async () => {
    const same = Uint32Array.of(7, 7);
    const runs: SigRecord[][] = [[{ d: 4, s: same }], [], [{ d: 2, s: same }, { d: 9, s: Uint32Array.of(7, 8) }], [{ d: 3, s: Uint32Array.of(0, 1) }]];
    const paths = runs.map((_, k) => join(dir, `tie-${k}.run.zst`));
    await Promise.all(runs.map((recs, k) => writeRunFile(paths[k], recs)));
    const merged: number[] = [];
    for await (const { stride, values } of mergeRuns(paths, (l, g) => join(dir, `tie-m-${l}-${g}.run`), 2)) {
      for (let at = 0; at < values.length; at += stride) merged.push(values[at]);
    }
    expect(merged).toEqual([3, 2, 4, 9]);
  });
});

describe("a store merged with new runs", () => {
  it("is the store of all runs, byte for byte: storeRecords streams a store (ordinals shifted) in the runs' order", async () => {
    const r = new Sfc32(5, 5);
    // Few distinct signatures (4 words), so that old and new documents share some.
    const pool = Array.from({ length: 40 }, () => Uint32Array.from({ length: 4 }, () => r.nextUint32() & 3));
    const runOf = (from: number, n: number) => Array.from({ length: n }, (_, k) => ({ d: from + k, s: pool[r.nextUint32() % pool.length] })).sort(compareSigRecords);
    const old = [runOf(0, 5000), runOf(5000, 3000)];
    const batch = [runOf(8000, 700), runOf(8700, 900)];
    const write = async (name: string, runs: SigRecord[][]) => {
      const work = join(dir, name);
      await createWorkdir(work);
      const paths = runs.map((_, k) => join(work, `${k}.run.zst`));
      await Promise.all(runs.map((recs, k) => writeRunFile(paths[k], recs)));
      return work;
    };
    const scratch = (work: string) => (l: number, g: number) => join(work, `m-${l}-${g}.run.zst`);
    const all = await write("all", [...old, ...batch]);
    await writeSignatureStore(all, [0, 1, 2, 3].map((k) => join(all, `${k}.run.zst`)), scratch(all));
    // The old documents' store, merged into the batch's.
    const base = await write("base", old);
    await writeSignatureStore(base, [0, 1].map((k) => join(base, `${k}.run.zst`)), scratch(base));
    const next = await write("next", batch);
    const stats = await writeSignatureStore(next, [0, 1].map((k) => join(next, `${k}.run.zst`)), scratch(next), [storeRecords(storeFiles(base), 128, 0)]);
    expect(stats.documents).toBe(9600);
    for (const kind of ["signatures", "offsets", "docs"] as const) expect(readFileSync(storeFiles(next)[kind])).toEqual(readFileSync(storeFiles(all)[kind]));
  });

  it("storeRecords adds the offset to every ordinal", async () => {
    const recs = Array.from({ length: 10 }, (_, k) => ({ d: k, s: Uint32Array.of(k % 3, 0) })).sort(compareSigRecords);
    const work = join(dir, "offset");
    await createWorkdir(work);
    await writeRunFile(join(work, "0.run.zst"), recs);
    await writeSignatureStore(work, [join(work, "0.run.zst")], (l, g) => join(work, `m-${l}-${g}.run.zst`));
    const out: number[] = [];
    for await (const rec of storeRecords(storeFiles(work), 64, 100)) out.push(rec.d);
    expect(out).toEqual(recs.map((x) => x.d + 100));
  });
});
