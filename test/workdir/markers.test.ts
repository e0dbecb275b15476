import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { phaseTiming } from "../../src/executor/timing.js";
import { completedTasks, prepareKernels, writeMarker } from "../../src/workdir/layout.js";

const work = mkdtempSync(join(tmpdir(), "vertdup-markers-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("completion markers", () => {
  it("a marker write cut short (its temporary file left, empty) is not a marker", async () => {
    mkdirSync(join(work, "markers"));
    await writeMarker(work, "time-count-0-of-2", { seconds: 2, peakRssMiB: 100 });
    await writeMarker(work, "count-000000", { docs: 1 });
    // What SIGKILL during write-file-atomic leaves: `<marker>.done.<hash>`, empty.
    writeFileSync(join(work, "markers", "time-count-1-of-2.done.3168574203"), "");
    writeFileSync(join(work, "markers", "count-000001.done.99"), "");
    expect((await completedTasks(work)).sort()).toEqual(["count-000000", "time-count-0-of-2"]);
    expect(await phaseTiming(work, "count")).toEqual({ seconds: 2, peakRssMiB: 100 });
  });

  it("a phase's timing over slices: the slowest wall time, the highest peak, the sum of CPU times (when every slice has one)", async () => {
    const other = mkdtempSync(join(tmpdir(), "vertdup-markers-"));
    try {
      mkdirSync(join(other, "markers"));
      await writeMarker(other, "time-sign-0-of-2", { seconds: 3, peakRssMiB: 100, cpuSeconds: 5.5 });
      await writeMarker(other, "time-sign-1-of-2", { seconds: 2, peakRssMiB: 300, cpuSeconds: 3.25 });
      expect(await phaseTiming(other, "sign")).toEqual({ seconds: 3, peakRssMiB: 300, cpuSeconds: 8.75 });
      // A slice timed by an older version has no CPU time: the sum would be too low.
      await writeMarker(other, "time-merge-0-of-2", { seconds: 1, peakRssMiB: 100, cpuSeconds: 1 });
      await writeMarker(other, "time-merge-1-of-2", { seconds: 4, peakRssMiB: 50 });
      expect(await phaseTiming(other, "merge")).toEqual({ seconds: 4, peakRssMiB: 100 });
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("the count and sign passes' kernels: a slice that fell back decides, whichever slice it is", async () => {
    const other = mkdtempSync(join(tmpdir(), "vertdup-markers-"));
    try {
      expect(await prepareKernels(other)).toBeUndefined();
      mkdirSync(join(other, "markers"));
      await writeMarker(other, "kernels-sign-0-of-3", { accumulate: "webassembly" });
      expect(await prepareKernels(other)).toEqual({ accumulate: "webassembly" });
      await writeMarker(other, "kernels-sign-1-of-3", { accumulate: "typescript (no SIMD)" });
      await writeMarker(other, "kernels-sign-2-of-3", { accumulate: "webassembly" });
      expect(await prepareKernels(other)).toEqual({ accumulate: "typescript (no SIMD)" });
      await writeMarker(other, "kernels-count-0-of-2", { "token-hash": "typescript (no WebAssembly)" });
      await writeMarker(other, "kernels-count-1-of-2", { "token-hash": "webassembly" });
      expect(await prepareKernels(other)).toEqual({ accumulate: "typescript (no SIMD)", "token-hash": "typescript (no WebAssembly)" });
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
