/**
 * Each PLEB iteration's sorted keys, kept by a run whose work directory becomes an index, so
 * that a batch (`--against-scan new`) sorts only its own signatures: an iteration's
 * permutation depends only on (bits, seed, shift count, iteration), so the index's signatures
 * have the same keys in the batch's run, and their order among themselves is the one the
 * index's run sorted. The batch merges its sorted keys into them (mergeStoredKeys) instead of
 * computing and sorting the keys of all N + M signatures.
 *
 * One raw little-endian u32 file per iteration, 8 bytes per signature: the first 32 key bits
 * (`hi`, sortKeys) of the signatures in sorted order, then their store indices in that order.
 * The other 32 bits (`lo`) are left out: they decide only between equal `hi`, and the merge
 * recomputes them from the signature for those few comparisons.
 */

import { statSync } from "node:fs";
import { join } from "node:path";
import { readU32 } from "../runs/signature-store.js";
import { writeAtomic } from "../util/atomic.js";
import { VertdupError } from "../core/errors.js";
import type { BitPermutation } from "./permutation.js";
import { lowKey } from "./sort-keys.js";

/** Folder of a work directory's sorted keys, one sub-folder per (seed, shift count) (keysFolder). */
export function sortedKeysRoot(workdir: string): string {
  return join(workdir, "pleb", "sort-keys");
}

/** Sub-folder of the sorted keys of one (seed, shift count): searches with others keep their own. */
export function keysFolder(seed: number, shiftCount: number): string {
  return `seed${seed}-shift${shiftCount}`;
}

export function sortedKeysDir(workdir: string, seed: number, shiftCount: number): string {
  return join(sortedKeysRoot(workdir), keysFolder(seed, shiftCount));
}

/** An index's role of the sorted keys in file `name` (sortedKeysName) of `folder` (keysFolder). */
export function sortedKeysRole(folder: string, name: string): string {
  return `${SORTED_KEYS_ROLE}${folder}-${name.replace(/\.u32$/, "")}`;
}

/** Prefix of the sorted keys' roles in an index. */
export const SORTED_KEYS_ROLE = "sort-keys-";

/** File name of an iteration's (1-based) sorted keys. */
export function sortedKeysName(iteration: number): string {
  return `${String(iteration).padStart(4, "0")}.u32`;
}

/** Writes an iteration's sorted keys: the sorted order and `hi` in that order. */
export async function writeSortedKeys(path: string, keys: SortedKeys): Promise<void> {
  const n = keys.order.length;
  const out = new Uint32Array(2 * n);
  out.set(keys.hi);
  out.set(keys.order, n);
  await writeAtomic(path, new Uint8Array(out.buffer));
}

/** An iteration's stored keys: `hi` in sorted order and the store indices in that order. */
export interface SortedKeys {
  hi: Uint32Array;
  order: Uint32Array;
}

/** Reads an iteration's sorted keys of a store of `count` signatures, refusing a file of another size. */
export function readSortedKeys(path: string, count: number): SortedKeys {
  const bytes = statSync(path).size;
  if (bytes !== 8 * count) throw new VertdupError(`${path}: ${bytes} bytes of sorted keys, but the index's store holds ${count} signatures (${8 * count} bytes expected)`);
  const all = readU32(path, false);
  return { hi: all.subarray(0, count), order: all.subarray(count) };
}

/** What mergeStoredKeys merges: the index's stored keys and the fresh signatures' keys. */
export interface KeysToMerge {
  /** The combined store's signatures, words per signature, and the iteration's permutation (for `lo` on ties). */
  store: Uint32Array;
  words: number;
  perm: BitPermutation;
  /** The index's stored keys. */
  old: SortedKeys;
  /**
   * The combined store's index of each of the index's signatures, or SKIP for one that is
   * fresh too (a new document shares it): it is taken from the fresh side (oldInCombined).
   */
  toCombined: Uint32Array;
  /** The fresh signatures' combined indices (ascending), keys, and their sorted order (sortOrder of hi, lo). */
  freshIndex: Uint32Array;
  freshHi: Uint32Array;
  freshLo: Uint32Array;
  freshOrder: Uint32Array;
}

/** toCombined's mark of an index signature that is fresh too. */
export const SKIP = 0xffffffff;

/** KeysToMerge's toCombined: `combined[j]`, the combined index of the index's signature j, or SKIP where it is fresh. */
export function oldInCombined(combined: Uint32Array, fresh: Uint8Array): Uint32Array {
  return combined.map((c) => (fresh[c] === 1 ? SKIP : c));
}

/**
 * The sorted order of the whole combined store (n signatures) for one iteration, as sortOrder
 * over all their keys gives it: by (hi, lo, combined index). The index's signatures keep
 * their stored order, since the combined store keeps their relative order and their keys are
 * the same; the fresh ones are merged in. Fills `order` (n) and `hi` (n, the keys in sorted
 * order, as writeSortedKeys stores them for --update). One pass over the stored keys: lo is
 * computed only where an old and a fresh hi are equal.
 */
export function mergeStoredKeys(m: KeysToMerge, order: Uint32Array, hi: Uint32Array): void {
  const { store, words, perm, old, toCombined, freshIndex, freshHi, freshLo, freshOrder } = m;
  const n = order.length;
  const oldCount = old.order.length;
  const freshCount = freshOrder.length;
  let at = 0;
  let f = 0;
  // The next fresh signature's key and combined index (hi = 2^32 past the last: after every old one).
  let fk = freshCount > 0 ? freshOrder[0] : 0;
  let fHi = freshCount > 0 ? freshHi[fk] : 2 ** 32;
  for (let i = 0; i < oldCount; i++) {
    const c = toCombined[old.order[i]];
    if (c === SKIP) continue;
    const h = old.hi[i];
    // Fresh signatures before this old one: smaller hi, or equal hi and smaller (lo, index).
    while (fHi < h || (fHi === h && freshBefore(fk, c, lowKey(store, words, perm, c), freshLo, freshIndex))) {
      if (at === n) throw new Error(`stored keys merge: more than ${n} signatures (${oldCount} stored, ${freshCount} fresh)`);
      hi[at] = fHi;
      order[at++] = freshIndex[fk];
      if (++f < freshCount) {
        fk = freshOrder[f];
        fHi = freshHi[fk];
      } else fHi = 2 ** 32;
    }
    if (at === n) throw new Error(`stored keys merge: more than ${n} signatures (${oldCount} stored, ${freshCount} fresh)`);
    hi[at] = h;
    order[at++] = c;
  }
  for (; f < freshCount && at < n; f++) {
    hi[at] = freshHi[freshOrder[f]];
    order[at++] = freshIndex[freshOrder[f]];
  }
  if (at !== n || f !== freshCount) throw new Error(`stored keys merge: ${at} of ${n} signatures placed (${oldCount} stored, ${freshCount} fresh)`);
}

/** Whether fresh signature k (of equal hi) sorts before the old one of combined index c and low key lo. */
function freshBefore(k: number, c: number, lo: number, freshLo: Uint32Array, freshIndex: Uint32Array): boolean {
  return freshLo[k] !== lo ? freshLo[k] < lo : freshIndex[k] < c;
}
