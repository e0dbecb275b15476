import { wordOrder } from "../util/radix-order.js";

/**
 * Calls `onGroup(members, from, to)` for every run of two or more members sharing a key;
 * members of a run are in increasing order when `members` was (the radix sort is stable).
 */
export function forEachKeyGroup(
  keys: Uint32Array,
  members: Uint32Array,
  onGroup: (members: Uint32Array, from: number, to: number) => void,
): void {
  const n = keys.length;
  const order = wordOrder(keys, n);
  const sorted = new Uint32Array(n);
  for (let k = 0; k < n; k++) sorted[k] = members[order[k]];
  let from = 0;
  for (let k = 1; k <= n; k++) {
    if (k === n || keys[order[k]] !== keys[order[from]]) {
      if (k - from > 1) onGroup(sorted, from, k);
      from = k;
    }
  }
}
