import { describe, expect, it } from "vitest";
import type { WorkerPool } from "../../src/executor/pool.js";
import { InProcessPool } from "../../src/executor/in-process-pool.js";
import { COUNT_WORKERS, type CountTasks } from "../../src/features/count-entry.js";
import type { CountTask, ShardStats } from "../../src/features/count-shard.js";
import type { ParagraphTasks } from "../../src/paragraph-dedup/paragraphs-entry.js";
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
  it("are their entry's name at run time, a part's the same as its whole's", () => {
    expect(typeof typedCalls).toBe("function");
    expect(PREPARE_WORKERS).toBe("prepare");
    expect(COUNT_WORKERS).toBe(PREPARE_WORKERS);
  });
});
