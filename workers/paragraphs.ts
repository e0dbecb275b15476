import { move, transferableSymbol, valueSymbol } from "piscina";
import { asTask } from "../src/coordinator/task-result.js";
import { splitBucket } from "../src/paragraph-dedup/bucket-split.js";
import { bucketRepeats } from "../src/paragraph-dedup/bucket-task.js";
import { occurrencesTask, type ChunkOccurrences } from "../src/paragraph-dedup/occurrences.js";
import type { ProblemFound } from "../src/paragraph-dedup/line-problem.js";
import { renderChunk, type Rendered } from "../src/paragraph-dedup/render.js";

/**
 * A task whose large result buffers are moved to the coordinator rather than copied or
 * shared: a moved buffer is freed with its last user, while a shared one lives on until every
 * thread that saw it has collected its garbage (which made memory grow with the corpus).
 */
function moving<A, T>(fn: (arg: A) => T, buffers: (value: T) => ArrayBufferLike[]) {
  const task = asTask(fn);
  return async (arg: A) => {
    const result = await task(arg);
    if (!result.ok) return result;
    const list = buffers(result.value).filter((b): b is ArrayBuffer => b instanceof ArrayBuffer);
    return move({ [transferableSymbol]: list, [valueSymbol]: result });
  };
}

export const occurrences = moving(occurrencesTask, (r: ChunkOccurrences | ProblemFound) => ("problem" in r ? [] : [r.occ.buffer, r.layout.buffer, ...(r.bytes === null ? [] : [r.bytes.buffer])]));
export const split = asTask(splitBucket);
export const repeats = moving(bucketRepeats, (r: Uint32Array) => [r.buffer]);
export const render = moving(renderChunk, (r: Rendered) => [r.bytes.buffer]);
