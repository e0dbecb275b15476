/**
 * PLEB's search keyed by partition (`--partition-attr`): each iteration orders the signatures
 * by (partition, permuted signature) and a beam scans one partition's run of that order only,
 * so a beam never holds a signature of another partition. A signature whose documents lie in
 * several partitions is an entry of each, so that each partition's run holds every signature
 * it has; within a run, ties are by store index, as in the unpartitioned order.
 */

import type { SignatureStore } from "../runs/signature-store.js";
import { sortOrder } from "../util/radix-order.js";

/** The (partition, signature) entries of a store, by partition then store index, in shared memory. */
export interface PartitionEntries {
  /** The store index of each entry. */
  signature: Uint32Array;
  /** Partition p's entries are [starts[p], starts[p + 1]). */
  starts: Uint32Array;
}

/** The entries of `store` whose documents have partition numbers `part` (partitionNumbers). */
export function partitionEntries(store: SignatureStore, part: Uint32Array): PartitionEntries {
  let partitions = 0;
  for (const p of part) partitions = Math.max(partitions, p + 1);
  // The distinct partitions of each signature, in store order: marked per signature so that a partition counts once.
  const seen = new Int32Array(partitions).fill(-1);
  const count = new Uint32Array(partitions + 1);
  const forEachEntry = (visit: (i: number, p: number) => void) => {
    seen.fill(-1);
    for (let i = 0; i < store.count; i++) {
      for (let k = store.offsets[i]; k < store.offsets[i + 1]; k++) {
        const p = part[store.docs[k]];
        if (seen[p] === i) continue;
        seen[p] = i;
        visit(i, p);
      }
    }
  };
  forEachEntry((_, p) => count[p + 1]++);
  for (let p = 0; p < partitions; p++) count[p + 1] += count[p];
  const starts = Uint32Array.from(count);
  const signature = new Uint32Array(new SharedArrayBuffer(starts[partitions] * 4));
  forEachEntry((i, p) => (signature[count[p]++] = i));
  return { signature, starts };
}

/**
 * The iteration's order of the entries (`order`: one store index per entry) from the keys of
 * every signature (`hi`, `lo`, sortKeys): each partition's run sorted by (hi, lo, store index).
 */
export function partitionOrder(entries: PartitionEntries, hi: Uint32Array, lo: Uint32Array, order: Uint32Array): void {
  const { signature, starts } = entries;
  for (let p = 0; p + 1 < starts.length; p++) {
    const from = starts[p];
    const n = starts[p + 1] - from;
    const run = signature.subarray(from, from + n);
    // A run's entries are in store order, so sortOrder's ties by position are ties by store index.
    const sorted = sortOrder(
      run.map((i) => hi[i]),
      run.map((i) => lo[i]),
      n,
    );
    for (let k = 0; k < n; k++) order[from + k] = run[sorted[k]];
  }
}

/** The scan's chunks of the order: [from, to) positions of one partition's run (given as its `start`, `end`), about `chunks` in all. */
export function partitionScanRanges(entries: PartitionEntries, chunks: number): { start: number; end: number; from: number; to: number }[] {
  const { starts } = entries;
  const total = starts[starts.length - 1];
  const out: { start: number; end: number; from: number; to: number }[] = [];
  for (let p = 0; p + 1 < starts.length; p++) {
    const [start, end] = [starts[p], starts[p + 1]];
    const last = end - start - 1;
    if (last < 1) continue;
    const step = Math.ceil(last / Math.max(1, Math.round((chunks * last) / total)));
    for (let from = 0; from < last; from += step) out.push({ start, end, from, to: Math.min(last, from + step) });
  }
  return out;
}
