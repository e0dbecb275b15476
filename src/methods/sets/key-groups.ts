import { integerOrder, wordOrder } from "../../util/radix-order.js";

type OnGroup = (members: Uint32Array, from: number, to: number) => void;

/** Runs of two or more equal keys in `order` (keys compared by `equal(i, j)` of indices). */
function forEachRun(order: Uint32Array, members: Uint32Array, equal: (i: number, j: number) => boolean, onGroup: OnGroup): void {
  const n = order.length;
  const sorted = new Uint32Array(n);
  for (let k = 0; k < n; k++) sorted[k] = members[order[k]];
  let from = 0;
  for (let k = 1; k <= n; k++) {
    if (k === n || !equal(order[k], order[from])) {
      if (k - from > 1) onGroup(sorted, from, k);
      from = k;
    }
  }
}

/**
 * Calls `onGroup(members, from, to)` for every run of two or more members sharing a key, in
 * key order; members of a run are in increasing order when `members` was (the radix sort is
 * stable).
 */
export function forEachKeyGroup(keys: Uint32Array, members: Uint32Array, onGroup: OnGroup): void {
  forEachRun(wordOrder(keys, keys.length), members, (i, j) => keys[i] === keys[j], onGroup);
}

/** `forEachKeyGroup` for keys that are integers in [0, 2^53) (set elements). */
export function forEachValueGroup(values: Float64Array, members: Uint32Array, onGroup: OnGroup): void {
  forEachRun(integerOrder(values, values.length), members, (i, j) => values[i] === values[j], onGroup);
}
