import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { markerFile, readMarker, writeMarker } from "../../src/workdir/layout.js";
import { markerStats, runTasks, runWholeTask, TaskRunner, type StepTask } from "../../src/executor/tasks.js";

const made: string[] = [];
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

function workdir(): string {
  const d = mkdtempSync(join(tmpdir(), "vertdup-tasks-"));
  made.push(d);
  mkdirSync(join(d, "markers"));
  return d;
}

/** A task whose result is `value` after `delay` ms; what happened to it goes to `log`. */
function task(work: string, name: string, value: number, delay: number, log: string[]): StepTask<number> {
  return {
    marker: name,
    start: async () => {
      log.push(`start ${name}`);
      // The executor writes the marker only after the task returned: none when it returns.
      const result = new Promise<number>((resolve) => setTimeout(() => (log.push(`marked before return: ${existsSync(markerFile(work, name))}`), resolve(value)), delay));
      return { result };
    },
    load: markerStats<number>(work, name),
    stats: (r) => r,
  };
}

describe("the executor", () => {
  it("runs the tasks without a marker, loads the others, writes their markers; results in task order", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ done: fc.boolean(), delay: fc.integer({ min: 0, max: 3 }) }), { maxLength: 8 }), async (specs) => {
        const work = workdir();
        for (const [i, s] of specs.entries()) if (s.done) await writeMarker(work, `t${i}`, 100 + i);
        const log: string[] = [];
        const results = await runTasks(work, specs.map((s, i) => task(work, `t${i}`, 100 + i, s.delay, log)));
        expect(results).toEqual(specs.map((_, i) => 100 + i));
        expect(log.filter((l) => l.startsWith("start"))).toEqual(specs.flatMap((s, i) => (s.done ? [] : [`start t${i}`])));
        expect(log.filter((l) => l.startsWith("marked"))).toEqual(specs.filter((s) => !s.done).map(() => "marked before return: false"));
        for (const i of specs.keys()) expect(await readMarker(work, `t${i}`)).toBe(100 + i);
      }),
      { numRuns: 30 },
    );
  });

  it("gives each task's completion to a step that decides on it, its marker in place by then", async () => {
    const work = workdir();
    const runner = new TaskRunner<number>(work);
    const { result } = await runner.add(task(work, "a", 7, 1, []));
    expect(await result).toBe(7);
    expect(existsSync(markerFile(work, "a"))).toBe(true);
    expect(await runner.results()).toEqual([7]);
  });

  it("with the markers made durable at the step's end, runs, marks and loads the tasks alike", async () => {
    const work = workdir();
    await writeMarker(work, "b", 8);
    const log: string[] = [];
    const runner = new TaskRunner<number>(work, true);
    for (const [name, value] of [["a", 7], ["b", 8], ["c", 9]] as const) await runner.add(task(work, name, value, 1, log));
    expect(await runner.results()).toEqual([7, 8, 9]);
    expect(log.filter((l) => l.startsWith("start"))).toEqual(["start a", "start c"]);
    for (const [name, value] of [["a", 7], ["c", 9]] as const) expect(await readMarker(work, name)).toBe(value);
  });

  it("writes the marker of a task with unsynced files once they are synced, in batches; a missing one fails the step without its marker", async () => {
    const work = workdir();
    const runner = new TaskRunner<number>(work, true);
    const names = Array.from({ length: 20 }, (_, i) => `u${i}`);
    const files = names.map((n) => join(work, `${n}.bin`));
    // The last task's file is missing, and it completes last: the batches before it are all written.
    for (const [i, name] of names.entries()) {
      if (i < 19) writeFileSync(files[i], name);
      await runner.add({ ...task(work, name, i, i === 19 ? 30 : 0, []), unsynced: [files[i]] });
    }
    await expect(runner.results()).rejects.toThrow(/u19\.bin: cannot write \(no such file or directory/);
    expect(names.filter((n) => existsSync(markerFile(work, n)))).toEqual(names.slice(0, 19));
    writeFileSync(files[19], "u19");
    const log: string[] = [];
    const resumed = new TaskRunner<number>(work, true);
    for (const [i, name] of names.entries()) await resumed.add({ ...task(work, name, i, 0, log), unsynced: [files[i]] });
    expect(await resumed.results()).toEqual(names.map((_, i) => i));
    expect(log.filter((l) => l.startsWith("start"))).toEqual(["start u19"]);
    for (const [i, n] of names.entries()) expect(await readMarker(work, n)).toBe(i);
  });

  it("a failed task leaves no marker and fails the step", async () => {
    const work = workdir();
    const failing: StepTask<number> = { marker: "bad", start: async () => ({ result: Promise.reject(new Error("boom")) }), load: async () => 0, stats: (r) => r };
    await expect(runTasks(work, [failing])).rejects.toThrow("boom");
    expect(existsSync(markerFile(work, "bad"))).toBe(false);
  });

  it("a one-task step runs once, then is read back from its marker", async () => {
    const work = workdir();
    let runs = 0;
    const work1 = async () => ({ n: ++runs });
    expect(await runWholeTask(work, "whole", work1)).toEqual({ n: 1 });
    expect(await runWholeTask(work, "whole", work1)).toEqual({ n: 1 });
    expect(runs).toBe(1);
  });
});
