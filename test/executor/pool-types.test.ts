import { describe, expect, it } from "vitest";
import type { WorkerPool } from "../../src/executor/pool.js";
import { InProcessPool } from "../../src/executor/in-process-pool.js";
import { COUNT_WORKERS, type CountTasks } from "../../src/features/count-entry.js";
import type { CountTask, ShardStats } from "../../src/features/count-shard.js";
import { PARAGRAPHS_WORKERS, type ParagraphTasks } from "../../src/paragraph-dedup/paragraphs-entry.js";
import { PLEB_WORKERS } from "../../src/pleb/pleb-entry.js";
import { METHODS_WORKERS } from "../../src/methods/sets/methods-entry.js";
import { REFERENCE_WORKERS } from "../../src/eval/exact/reference-entry.js";
import type { Rendered, RenderTask } from "../../src/paragraph-dedup/render.js";
import { paragraphTasks } from "../../src/paragraph-dedup/tasks.js";
import { PREPARE_WORKERS, type PrepareTasks } from "../../src/sketch/prepare-entry.js";
import type { TaskPool } from "../../src/executor/in-process-pool.js";

/** Checked by tsc (never run): a call names a task of its pool's table, takes that task's argument and gives its value. */
async function typedCalls(prepare: WorkerPool<PrepareTasks>, count: WorkerPool<CountTasks>, paragraphs: WorkerPool<ParagraphTasks>, task: CountTask, render: RenderTask) {
  const stats: ShardStats = await prepare.run("count", task);
  // @ts-expect-error not a task of the prepare entry
  await prepare.run("scan", task);
  // @ts-expect-error the sign task takes a SignTask
  await prepare.submit("sign", task);
  // A result the worker moves (paragraphs-worker.ts) arrives as its value.
  const rendered: Rendered = await paragraphs.run("render", render);
  // A pool over an entry's table serves where part of it is asked for, not the other way round.
  const part: WorkerPool<CountTasks> = prepare;
  // @ts-expect-error the count part lacks sign and fill
  const whole: WorkerPool<PrepareTasks> = count;
  const inProcess: TaskPool<ParagraphTasks> = new InProcessPool(paragraphTasks);
  return [stats, rendered, part, whole, inProcess];
}

describe("worker entries", () => {
  it("name their worker file; a part's name is its whole's, so a step context gives both one pool", () => {
    expect(typeof typedCalls).toBe("function");
    expect(PREPARE_WORKERS.name).toBe("prepare");
    expect(COUNT_WORKERS.name).toBe(PREPARE_WORKERS.name);
  });

  it("hold, for a pool in this thread, the tasks their worker file exports (a part, some of them)", async () => {
    const names = (table: object) => Object.keys(table).sort();
    const worker = names(await import("../../workers/prepare.js"));
    expect(names(PREPARE_WORKERS.tasks)).toEqual(worker);
    const part = names(COUNT_WORKERS.tasks);
    expect(part.length).toBeGreaterThan(0);
    expect(part.filter((n) => !worker.includes(n))).toEqual([]);
    expect(names(PARAGRAPHS_WORKERS.tasks)).toEqual(names(await import("../../workers/paragraphs.js")));
    expect(names(PLEB_WORKERS.tasks)).toEqual(names(await import("../../workers/pleb.js")));
    expect(names(METHODS_WORKERS.tasks)).toEqual(names(await import("../../workers/methods.js")));
    expect(names(REFERENCE_WORKERS.tasks)).toEqual(names(await import("../../workers/reference.js")));
  });
});
