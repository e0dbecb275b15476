import { availableParallelism } from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { maxWorkerThreads, WorkerPool } from "../../src/executor/pool.js";
import { PREPARE_WORKERS, type PrepareTasks } from "../../src/sketch/prepare-entry.js";

/** The threads Piscina has started so far (the pool's own, private). */
const started = (pool: WorkerPool<PrepareTasks>) => (Reflect.get(pool, "pool") as { threads: unknown[] }).threads.length;

describe("--workers beyond what the machine can run", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is capped at twice the CPUs, said once on stderr, and threads start only as tasks wait", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const pools = [new WorkerPool<PrepareTasks>(PREPARE_WORKERS, 1000), new WorkerPool<PrepareTasks>(PREPARE_WORKERS, 1000)];
    try {
      expect(maxWorkerThreads()).toBe(2 * availableParallelism());
      for (const pool of pools) {
        expect(pool.threads).toBe(maxWorkerThreads());
        expect(started(pool)).toBe(1);
      }
      const told = stderr.mock.calls.map(([text]) => String(text)).filter((t) => t.includes("--workers"));
      expect(told).toEqual([`vertdup: --workers 1000: at most ${maxWorkerThreads()} worker threads (twice the ${availableParallelism()} CPUs available)\n`]);
    } finally {
      for (const pool of pools) await pool.close();
    }
  });

  it("is kept when the machine can run it", async () => {
    const pool = new WorkerPool<PrepareTasks>(PREPARE_WORKERS, 1);
    try {
      expect(pool.threads).toBe(1);
    } finally {
      await pool.close();
    }
  });
});
