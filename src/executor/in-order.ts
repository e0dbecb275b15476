import type { TaskPool } from "./in-process-pool.js";

/** Runs tasks of one kind through the pool and consumes the results in submission order. */
export class InOrder<T, C> {
  private readonly pending: { result: Promise<T>; context: C }[] = [];
  constructor(
    private readonly pool: TaskPool,
    private readonly name: string,
    private readonly consume: (value: T, context: C) => void | Promise<void>,
  ) {}

  async submit(task: unknown, context: C, transferList?: ArrayBuffer[]): Promise<void> {
    const { result } = await this.pool.submit<T>(this.name, task, transferList);
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
