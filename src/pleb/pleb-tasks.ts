import { beamScanPairs, rankPositions, scatterSorted, type SortedPrefixes } from "./beam-scan.js";
import { BitPermutation } from "./permutation.js";
import { partitionOrder, type PartitionEntries } from "./partition-order.js";
import { keyOrder, sortKeys } from "./sort-keys.js";

/** The signature store as every PLEB task sees it (shared, never copied). */
export interface SharedSignatures {
  signatures: Uint32Array;
  words: number;
  seed: number;
  shiftCount: number;
}

export interface KeysTask extends SharedSignatures {
  iteration: number;
  from: number;
  to: number;
  hi: Uint32Array;
  lo: Uint32Array;
}

/**
 * Sort keys of signatures [from, to) under the permutation of `iteration`. The permutation
 * is replayed from the seed (iteration × shiftCount transpositions: microseconds), so no
 * state travels between threads, tasks or machines.
 */
export function computeKeys(task: KeysTask): void {
  const perm = BitPermutation.atIteration(task.words * 32, task.seed, task.shiftCount, task.iteration);
  sortKeys(task.signatures, task.words, perm, task.from, task.to, task.hi, task.lo);
}

/**
 * An iteration's sorted order: the keys of every signature (into `hi`, and `lo` where keyOrder
 * or the partitions need them), sorted into `order`; with `sortedHi`, `hi` in that order (stored keys); with `entries` (partitionEntries),
 * the order of the entries, by partition first (`order` holds one store index per entry).
 */
export interface OrderTask extends SharedSignatures {
  iteration: number;
  hi: Uint32Array;
  lo: Uint32Array;
  order: Uint32Array;
  sortedHi?: Uint32Array;
  entries?: PartitionEntries;
}

/**
 * OrderTask on a worker: the keys and their sort of one iteration in one task, so that the
 * coordinator can have it run while the pool scans the iteration before.
 */
export function sortedOrder(task: OrderTask): void {
  const { hi, lo, order, sortedHi, entries } = task;
  const n = hi.length;
  if (entries !== undefined) {
    computeKeys({ ...task, from: 0, to: n });
    return partitionOrder(entries, hi, lo, order);
  }
  keyOrder(task.signatures, task.words, BitPermutation.atIteration(task.words * 32, task.seed, task.shiftCount, task.iteration), hi, lo, order);
  if (sortedHi !== undefined) for (let k = 0; k < n; k++) sortedHi[k] = hi[order[k]];
}

export interface ScanTask {
  signatures: Uint32Array;
  words: number;
  order: Uint32Array;
  from: number;
  to: number;
  beam: number;
  maxDistance: number;
  /** Component labels of the signatures at the iteration's start: pairs within one are skipped. */
  labels?: Uint32Array;
  /** `--against-scan new`: 1 per signature holding a new document; only pairs with one are compared. */
  fresh?: Uint8Array;
  /** The prefixes, labels and fresh flags laid out by position (SortedPrefixes), if scattered. */
  sorted?: SortedPrefixes;
  /** The prefixes by store index (storePrefixes), gathered instead of the store's words. */
  prefixes?: Uint32Array;
}

/** Beam scan of the positions [from, to) of the sorted order: (i, j, distance) triples. */
export function beamScanRange(task: ScanTask): Uint32Array {
  const { signatures, words, order, from, to, beam, maxDistance, labels, fresh, sorted, prefixes } = task;
  return beamScanPairs(signatures, words, order, from, to, beam, maxDistance, undefined, labels, fresh, sorted, prefixes).toArray();
}

/** The positions of the signatures of a sorted order (rankPositions) for the order's positions [from, to). */
export interface RankTask {
  order: Uint32Array;
  rank: Uint32Array;
  from: number;
  to: number;
}

export function rankRange(task: RankTask): void {
  rankPositions(task.order, task.rank, task.from, task.to);
}

/** SortedPrefixes of store indices [from, to) (scatterSorted): `prefixWords` words per signature. */
export interface ScatterTask {
  signatures: Uint32Array;
  words: number;
  prefixWords: number;
  rank: Uint32Array;
  from: number;
  to: number;
  sorted: SortedPrefixes;
  labels?: Uint32Array;
  fresh?: Uint8Array;
}

export function scatterRange(task: ScatterTask): void {
  const { signatures, words, prefixWords, rank, from, to, sorted, labels, fresh } = task;
  scatterSorted(signatures, words, prefixWords, rank, from, to, sorted, labels, fresh);
}
