import { describe, expect, it } from "vitest";
import { partitionEntries, partitionOrder, partitionScanRanges } from "../../src/pleb/partition-order.js";
import type { SignatureStore } from "../../src/runs/signature-store.js";

/** A store of `docsOf.length` one-word signatures (only the documents matter here). */
function store(docsOf: number[][]): SignatureStore {
  const offsets = new Uint32Array(docsOf.length + 1);
  docsOf.forEach((d, i) => (offsets[i + 1] = offsets[i] + d.length));
  return { words: 1, count: docsOf.length, signatures: new Uint32Array(docsOf.length), offsets, docs: Uint32Array.from(docsOf.flat()) };
}

describe("PLEB keyed by partition", () => {
  it("makes a signature an entry of each partition its documents lie in, once, and sorts each partition's run by (hi, lo, store index)", () => {
    // Documents 0-5 in partitions 0, 1, 0, 2, 1, 0; signature 1 holds documents of partitions 1 and 0 (twice).
    const part = Uint32Array.of(0, 1, 0, 2, 1, 0);
    const entries = partitionEntries(store([[3], [1, 2, 5], [0], [4]]), part);
    expect([...entries.starts]).toEqual([0, 2, 4, 5]);
    expect([...entries.signature]).toEqual([1, 2, 1, 3, 0]);
    const order = new Uint32Array(5);
    // Keys of signatures 0-3: signature 2 before 1 in partition 0; 1 and 3 tie in hi and lo, by store index in partition 1.
    partitionOrder(entries, Uint32Array.of(7, 5, 4, 5), Uint32Array.of(0, 1, 9, 1), order);
    expect([...order]).toEqual([2, 1, 1, 3, 0]);
  });

  it("cuts the scan into chunks of one partition's run each, covering every position with a next one", () => {
    const entries = { signature: new Uint32Array(10), starts: Uint32Array.of(0, 1, 7, 10) };
    const ranges = partitionScanRanges(entries, 4);
    expect(ranges.every((r) => r.from < r.to && r.to <= r.end - r.start - 1)).toBe(true);
    // Partition 0 has one entry (nothing to compare); partition 1's 6 entries are scanned from positions 0-4, partition 2's 3 from 0-1.
    const covered = ranges.flatMap((r) => Array.from({ length: r.to - r.from }, (_, k) => `${r.start}:${r.from + k}`));
    expect(covered).toEqual(["1:0", "1:1", "1:2", "1:3", "1:4", "7:0", "7:1"]);
  });
});
