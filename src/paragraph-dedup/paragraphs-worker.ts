import { move, transferableSymbol, valueSymbol } from "piscina";
import type { TaskResult } from "../executor/task-result.js";
import type { RepeatsResult } from "./bucket-task.js";
import type { ChunkOccurrences } from "./occurrences.js";
import type { ProblemFound } from "./line-problem.js";
import type { Rendered } from "./render.js";
import { paragraphTasks } from "./tasks.js";

/**
 * A task whose large result buffers are moved to the coordinator rather than copied or
 * shared: a moved buffer is freed with its last user, while a shared one lives on until every
 * thread that saw it has collected its garbage (which made memory grow with the corpus).
 */
function moving<A, T>(task: (arg: A) => Promise<TaskResult<T>>, buffers: (value: T) => ArrayBufferLike[]): (arg: A) => Promise<TaskResult<T>> {
  return async (arg: A) => {
    const result = await task(arg);
    if (!result.ok) return result;
    const list = buffers(result.value).filter((b): b is ArrayBuffer => b instanceof ArrayBuffer);
    // Piscina hands the caller what is under valueSymbol: the result itself, so typed.
    return move({ [transferableSymbol]: list, [valueSymbol]: result }) as unknown as TaskResult<T>;
  };
}

// The task table of the paragraphs entry (workers/paragraphs.ts): Piscina runs the export a task names.
export const occurrences = moving(paragraphTasks.occurrences, (r: ChunkOccurrences | ProblemFound) => ("problem" in r ? [] : [r.occ.buffer, r.layout.buffer, ...(r.bytes === null ? [] : [r.bytes.buffer])]));
export const split = paragraphTasks.split;
export const repeats = moving(paragraphTasks.repeats, (r: RepeatsResult) => [r.repeats.buffer, ...[r.all, r.fresh].flatMap((b) => (b === undefined ? [] : [b.buffer]))]);
export const render = moving(paragraphTasks.render, (r: Rendered) => [r.bytes.buffer]);
