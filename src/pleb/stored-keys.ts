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
import { VertdupError } from "../util/errors.js";
import type { BitPermutation } from "./permutation.js";

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

/** The low 32 key bits (sortKeys' `lo`) of signature i under `perm`. */
export function lowKey(store: Uint32Array, W: number, perm: BitPermutation, i: number): number {
  let l = 0;
  for (let k = 32; k < 64; k++) {
    const p = perm.positions[k];
    l = (l << 1) | ((store[i * W + (p >>> 5)] >>> (p & 31)) & 1);
  }
  return l >>> 0;
}

/** What mergeStoredKeys merges: the index's stored keys and the fresh signatures' keys. */
export interface KeysToMerge {
  /** The combined store's signatures, words per signature, and the iteration's permutation (for `lo` on ties). */
  store: Uint32Array;
  words: number;
  perm: BitPermutation;
  /** The index's stored keys, with `toCombined` mapping its store indices to the combined store's. */
  old: SortedKeys;
  toCombined: Uint32Array;
  /** 1 per combined signature holding a new document: an index signature that is also fresh is taken from the fresh side. */
  fresh: Uint8Array;
  /** The fresh signatures' combined indices (ascending), keys, and their sorted order (sortOrder of hi, lo). */
  freshIndex: Uint32Array;
  freshHi: Uint32Array;
  freshLo: Uint32Array;
  freshOrder: Uint32Array;
}

/**
 * The sorted order of the whole combined store (n signatures) for one iteration, as sortOrder
 * over all their keys gives it: by (hi, lo, combined index). The index's signatures keep
 * their stored order, since the combined store keeps their relative order and their keys are
 * the same; the fresh ones are merged in. Fills `order` (n) and `hi` (n, the keys in sorted
 * order, as writeSortedKeys stores them for --update).
 */
export function mergeStoredKeys(m: KeysToMerge, order: Uint32Array, hi: Uint32Array): void {
  const { store, words, perm, old, toCombined, fresh, freshIndex, freshHi, freshLo, freshOrder } = m;
  const n = order.length;
  const oldCount = old.order.length;
  const freshCount = freshOrder.length;
  let i = 0;
  let f = 0;
  let at = 0;
  // The next index signature that is not fresh, its combined index, and its lo once needed.
  let oldC = -1;
  let oldLo = -1;
  const advance = () => {
    while (i < oldCount && fresh[toCombined[old.order[i]]] === 1) i++;
    oldC = i < oldCount ? toCombined[old.order[i]] : -1;
    oldLo = -1;
  };
  advance();
  while (at < n && (oldC >= 0 || f < freshCount)) {
    let takeOld: boolean;
    if (oldC < 0) takeOld = false;
    else if (f === freshCount) takeOld = true;
    else {
      const k = freshOrder[f];
      const h = old.hi[i];
      if (h !== freshHi[k]) takeOld = h < freshHi[k];
      else {
        if (oldLo < 0) oldLo = lowKey(store, words, perm, oldC);
        takeOld = oldLo !== freshLo[k] ? oldLo < freshLo[k] : oldC < freshIndex[k];
      }
    }
    if (takeOld) {
      hi[at] = old.hi[i];
      order[at++] = oldC;
      i++;
      advance();
    } else {
      const k = freshOrder[f++];
      hi[at] = freshHi[k];
      order[at++] = freshIndex[k];
    }
  }
  if (at !== n || oldC >= 0 || f < freshCount) throw new Error(`stored keys merge: ${at} of ${n} signatures placed (${oldCount} stored, ${freshCount} fresh)`);
}
