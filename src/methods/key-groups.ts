/**
 * Stable LSD radix sort (two 16-bit passes) of `members` by their 32-bit `keys`: members
 * with equal keys stay in their given order. Linear in the number of members.
 */
export function sortByKey(keys: Uint32Array, members: Uint32Array): { keys: Uint32Array; members: Uint32Array } {
  const n = keys.length;
  let k: Uint32Array = keys;
  let m: Uint32Array = members;
  let k2: Uint32Array = new Uint32Array(n);
  let m2: Uint32Array = new Uint32Array(n);
  const counts = new Uint32Array(65537);
  for (const shift of [0, 16]) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[((k[i] >>> shift) & 0xffff) + 1]++;
    for (let d = 1; d <= 65536; d++) counts[d] += counts[d - 1];
    for (let i = 0; i < n; i++) {
      const at = counts[(k[i] >>> shift) & 0xffff]++;
      k2[at] = k[i];
      m2[at] = m[i];
    }
    [k, k2] = [k2, k];
    [m, m2] = [m2, m];
  }
  return { keys: k, members: m };
}

/**
 * Calls `onGroup(members, from, to)` for every run of two or more members sharing a key;
 * members of a run are in increasing order when `members` was.
 */
export function forEachKeyGroup(
  keys: Uint32Array,
  members: Uint32Array,
  onGroup: (members: Uint32Array, from: number, to: number) => void,
): void {
  const sorted = sortByKey(keys, members);
  const n = sorted.keys.length;
  let from = 0;
  for (let i = 1; i <= n; i++) {
    if (i === n || sorted.keys[i] !== sorted.keys[from]) {
      if (i - from > 1) onGroup(sorted.members, from, i);
      from = i;
    }
  }
}
