import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { phaseTiming } from "../../src/coordinator/steps/timing.js";
import { completedTasks, writeMarker } from "../../src/coordinator/workdir.js";

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
});
