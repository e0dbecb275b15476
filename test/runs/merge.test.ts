import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mergeRuns } from "../../src/runs/merge.js";
import { writeRunFile } from "../../src/runs/run-file.js";
import { compareSigRecords, type SigRecord } from "../../src/runs/signature-record.js";
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
    for await (const rec of mergeRuns<SigRecord>(paths, compareSigRecords, (l, g) => join(dir, `m-${l}-${g}.run.zst`), 4)) merged.push(rec);
    expect(merged.map((x) => x.d)).toEqual(all.sort(compareSigRecords).map((x) => x.d));
    expect(merged.every((x) => x.s instanceof Uint32Array && x.s.length === 32)).toBe(true);
  });
});
