import type { TaskPool } from "../executor/in-process-pool.js";
import type { ParagraphTasks } from "./paragraphs-entry.js";
import { MAX_SPLIT_LEVEL, SPLIT_BITS, SPLIT_WAYS, type SplitTask } from "./bucket-split.js";
import type { BucketSource } from "./bucket-task.js";
import { InOrder } from "../executor/in-order.js";

/**
 * Bytes one table key may cost at worst: 8 bytes a slot at a load between 1/4 and 1/2, plus
 * its share of the results waiting for the coordinator.
 */
const BYTES_PER_KEY = 64;

/** Keys one bucket table may hold in external mode: the workers' tables share `memory`. */
export function tableKeys(memory: number, workers: number): number {
  return Math.max(1, Math.floor(memory / (workers * BYTES_PER_KEY)));
}

/**
 * Splits, level by level on the pool, every bucket run file with more than `maxKeys`
 * occurrences (an upper bound of its keys) until each fits one table or the key has no bits
 * left; returns the buckets to find repeats in. Memory-mode buckets are never split: they
 * fit in memory by definition.
 */
export async function splitBuckets(pool: TaskPool<ParagraphTasks>, buckets: readonly BucketSource[], maxKeys: number): Promise<BucketSource[]> {
  const leaves: BucketSource[] = [];
  let todo = buckets;
  while (todo.length > 0) {
    const next: BucketSource[] = [];
    const splits = new InOrder(pool, "split", (counts, { children, level, parent }: { children: string[]; level: number; parent: BucketSource }) => {
      const range = (k: number) => ({ prefix: ((parent.range.prefix << SPLIT_BITS) | k) >>> 0, bits: parent.range.bits + SPLIT_BITS });
      counts.forEach((count, k) => count > 0 && next.push({ path: children[k], count, level, range: range(k) }));
    });
    for (const s of todo) {
      if ("path" in s && s.count > maxKeys && s.level < MAX_SPLIT_LEVEL) {
        const children = Array.from({ length: SPLIT_WAYS }, (_, k) => `${s.path}.${k}`);
        await splits.submit({ path: s.path, level: s.level, children } satisfies SplitTask, { children, level: s.level + 1, parent: s });
      } else if (s.count > 0) {
        leaves.push(s);
      }
    }
    await splits.drain();
    todo = next;
  }
  return leaves;
}
