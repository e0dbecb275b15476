import type { TaskPool } from "./in-process-pool.js";
import type { TaskArg, TaskName, TaskValue } from "./worker-entry.js";

/** Runs tasks of one kind (`name` of the table `T`) through the pool and consumes the results in submission order. */
export class InOrder<T, K extends TaskName<T>, C> {
  private readonly pending: { result: Promise<TaskValue<T[K]>>; context: C }[] = [];
  constructor(
    private readonly pool: TaskPool<T>,
    private readonly name: K,
    private readonly consume: (value: TaskValue<T[K]>, context: C) => void | Promise<void>,
  ) {}

  async submit(task: TaskArg<T[K]>, context: C, transferList?: ArrayBuffer[]): Promise<void> {
    const { result } = await this.pool.submit(this.name, task, transferList);
    this.pending.push({ result, context });
    while (this.pending.length > this.pool.limit) await this.next();
  }

  private async next(): Promise<void> {
    const head = this.pending.shift()!;
    await this.consume(await head.result, head.context);
  }

  async drain(): Promise<void> {
    while (this.pending.length > 0) await this.next();
  }
}
