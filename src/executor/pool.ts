import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { Piscina } from "piscina";
import { VertdupError } from "../core/errors.js";
import { packageRoot } from "../util/package-info.js";
import { requireCjs } from "../util/require-cjs.js";
import { beforeSignalExit } from "../util/exit-cleanup.js";
import type { TaskResult } from "./task-result.js";
import type { TaskArg, TaskName, TaskValue, WorkerEntry } from "./worker-entry.js";

/** Worker entry points are always the compiled ones, also when src/ runs under vitest. */
function workerFile(name: string): string {
  const file = join(packageRoot(), "dist", "workers", `${name}.js`);
  if (!existsSync(file)) throw new Error(`vertdup: worker ${file} is missing; run npm run build`);
  return file;
}

/**
 * Node options of worker threads. Piscina loads a worker entry with `require` first; where
 * Node can `require` an ES module, that raced with the `import` of the same module in a
 * starting worker and aborted the whole process now and then (V8: "IsGraphAsync must be
 * used on an instantiated module", Node 20.20). Without require(esm) Piscina imports.
 */
function workerExecArgv(): string[] {
  const canRequireEsm = (process.features as { require_module?: boolean }).require_module === true;
  return canRequireEsm ? [...process.execArgv, "--no-experimental-require-module"] : [...process.execArgv];
}

/**
 * The most worker threads a pool starts: twice the CPUs this process may use (its affinity,
 * as a Slurm allocation sets it). Tasks mix computing with reading and writing files, so a
 * few more threads than CPUs keep them busy; beyond that a thread only costs memory (its heap
 * and the chunk it holds): `--workers 1000` passed 4 GiB on 35 documents.
 */
export function maxWorkerThreads(): number {
  return 2 * availableParallelism();
}

/** Whether this process has said that it caps `--workers` (once, whichever pool met it first). */
let capTold = false;

/**
 * A Piscina pool over one worker entry point, whose task table `T` types each call by the
 * task's name. At most `limit` tasks are in flight (`submit` waits for a free place), so a
 * fast producer cannot fill memory with queued input.
 */
export class WorkerPool<T> {
  /** Never set: makes a pool over a smaller table no stand-in for one over a larger table. */
  declare private readonly tasks?: T;
  private readonly pool: Piscina;
  private inFlight = 0;
  private waiting: (() => void)[] = [];
  /** The first failure of a submitted task: later submissions rethrow it at once. */
  private failure: { error: unknown } | null = null;
  /** Takes the pool's stop off the signal path once it is closed. */
  private readonly unhook: () => void;
  readonly limit: number;

  /** The most threads the pool starts: `--workers`, capped at `maxWorkerThreads()`. */
  readonly threads: number;

  /**
   * `requested`: `--workers`. The pool starts one thread, and another each time a task waits
   * for one, up to `threads`: a phase of few tasks starts no more threads than it has tasks.
   */
  constructor(entry: WorkerEntry<T>, requested: number) {
    const threads = (this.threads = Math.min(requested, maxWorkerThreads()));
    if (threads < requested && !capTold) {
      capTold = true;
      process.stderr.write(`vertdup: --workers ${requested}: at most ${threads} worker threads (twice the ${availableParallelism()} CPUs available)\n`);
    }
    // Required here, not imported: a run that starts no pool (small paragraphs inputs) never loads piscina.
    const { Piscina: Pool } = requireCjs("piscina") as { Piscina: typeof Piscina };
    this.pool = new Pool({ filename: workerFile(entry.name), minThreads: 1, maxThreads: threads, idleTimeout: 60_000, execArgv: workerExecArgv() });
    this.limit = threads * 2;
    // When one task fails the run closes the pool; a task still in flight may answer after
    // that, and Piscina reports the reply to a task it no longer knows as an 'error' event on
    // the pool, which unhandled would crash the process with a stack trace instead of the
    // first failure's message. The run has already failed: the first failure is what counts.
    this.pool.on("error", (error: unknown) => {
      this.failure ??= { error };
    });
    this.unhook = beforeSignalExit(() => this.pool.destroy());
  }

  /** Runs a task; user errors raised in the worker come back as VertdupError. */
  async run<K extends TaskName<T>>(name: K, task: TaskArg<T[K]>, transferList?: ArrayBuffer[]): Promise<TaskValue<T[K]>> {
    let result: TaskResult<TaskValue<T[K]>>;
    try {
      result = (await this.pool.run(task, { name, transferList })) as TaskResult<TaskValue<T[K]>>;
    } catch (err) {
      throw new Error(`worker task '${name}' failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    if (!result.ok) throw new VertdupError(result.message);
    return result.value;
  }

  /**
   * Waits for a free place, then starts the task. The result promise is wrapped in an
   * object because `await` would otherwise wait for the task itself.
   */
  async submit<K extends TaskName<T>>(name: K, task: TaskArg<T[K]>, transferList?: ArrayBuffer[]): Promise<{ result: Promise<TaskValue<T[K]>> }> {
    while (this.inFlight >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    if (this.failure !== null) throw this.failure.error;
    this.inFlight++;
    const done = this.run(name, task, transferList)
      .catch((error: unknown) => {
        this.failure ??= { error };
        throw error;
      })
      .finally(() => {
        this.inFlight--;
        this.waiting.shift()?.();
      });
    done.catch(() => undefined); // observed by the caller; avoids an unhandled rejection meanwhile
    return { result: done };
  }

  async close(): Promise<void> {
    this.unhook();
    await this.pool.destroy();
  }
}
