import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { checkClusters, comparePartitions, unescapeId } from "../../scripts/quality/clusters-check.js";
import { CLUSTERS_HEADER } from "../../src/output/clusters-tsv.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-ccheck-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a truth file and a clusters.tsv: rows [id, ordinal, cluster]. */
function files(truth: [string, number, number][], found: [string, number, number][]): { truthPath: string; clustersPath: string } {
  const truthPath = join(dir, "t.truth.tsv");
  const clustersPath = join(dir, "clusters.tsv");
  writeFileSync(truthPath, "doc\tordinal\tcluster\tkind\n" + truth.map(([id, o, c]) => `${id}\t${o}\t${c}\texact\n`).join(""));
  writeFileSync(clustersPath, CLUSTERS_HEADER + found.map(([id, o, c]) => `${id}\t${o}\t${c}\t0\tx\t1.0000\n`).join(""));
  return { truthPath, clustersPath };
}

describe("clusters-check", () => {
  it("counts pairs, split and merged documents on a hand-made case", async () => {
    // True {1,2,3,4} {5,6}; found {1,2,3} {4,5,6} {7,8}; 7 and 8 are in no true cluster.
    const { truthPath, clustersPath } = files(
      [["d1", 1, 1], ["d2", 2, 1], ["d3", 3, 1], ["d4", 4, 1], ["d5", 5, 2], ["d6", 6, 2]],
      [["d1", 1, 0], ["d2", 2, 0], ["d3", 3, 0], ["d4", 4, 1], ["d5", 5, 1], ["d6", 6, 1], ["d7", 7, 2], ["d8", 8, 2]],
    );
    const r = await checkClusters(clustersPath, truthPath);
    expect([r.truePairs, r.foundPairs, r.bothPairs]).toEqual([7, 7, 4]);
    expect(r.precision).toBeCloseTo(4 / 7, 12);
    expect(r.recall).toBeCloseTo(4 / 7, 12);
    expect([r.trueClusters, r.foundClusters, r.trueDocuments, r.foundDocuments, r.exact]).toEqual([2, 3, 6, 8, 0]);
    // d4 is split off {1,2,3,4} and wrongly merged into {5,6}'s cluster; d8 merged with d7.
    expect([r.split, r.merged]).toEqual([1, 2]);
    const bucket = (sizes: string) => r.buckets.find((b) => b.sizes === sizes)!;
    expect(bucket("1")).toMatchObject({ trueClusters: 0, documents: 0, split: 0, merged: 1 });
    expect(bucket("2")).toMatchObject({ trueClusters: 1, documents: 2, truePairs: 1, bothPairs: 1, recall: 1, exact: 0, split: 0, merged: 0 });
    expect(bucket("3-5")).toMatchObject({ trueClusters: 1, documents: 4, truePairs: 6, bothPairs: 3, recall: 0.5, exact: 0, split: 1, merged: 1 });
  });

  it("a partition compared with itself: everything found, nothing split or merged", () => {
    const of = Uint32Array.from([1, 1, 0, 2, 2, 2, 0, 3, 3, 4]);
    const r = comparePartitions(of, of);
    expect([r.precision, r.recall, r.f, r.split, r.merged, r.exact, r.trueClusters]).toEqual([1, 1, 1, 0, 0, 3, 3]);
  });

  it("counted pair measures equal the brute-force pair sets on random partitions", () => {
    const partition = (n: number) => fc.array(fc.integer({ min: 0, max: 6 }), { minLength: n, maxLength: n });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }).chain((n) => fc.tuple(partition(n), partition(n))),
        ([t, f]) => {
          let truePairs = 0;
          let foundPairs = 0;
          let bothPairs = 0;
          for (let i = 0; i < t.length; i++) {
            for (let j = i + 1; j < t.length; j++) {
              const inTrue = t[i] > 0 && t[i] === t[j];
              const inFound = f[i] > 0 && f[i] === f[j];
              truePairs += inTrue ? 1 : 0;
              foundPairs += inFound ? 1 : 0;
              bothPairs += inTrue && inFound ? 1 : 0;
            }
          }
          const r = comparePartitions(Uint32Array.from(t), Uint32Array.from(f));
          expect([r.truePairs, r.foundPairs, r.bothPairs]).toEqual([truePairs, foundPairs, bothPairs]);
          expect(r.buckets.reduce((n, b) => n + b.bothPairs, 0)).toBe(bothPairs);
          // Every document of a true cluster outside its plurality cell is split off.
          expect(r.split).toBeLessThanOrEqual(r.trueDocuments - (r.trueClusters > 0 ? 1 : 0));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("unescapes ids as clusters.tsv writes them and matches them with the truth's", async () => {
    expect(unescapeId("a\\tb\\nc\\rd\\\\e")).toBe("a\tb\nc\rd\\e");
    expect(unescapeId("plain")).toBe("plain");
    const ok = files([["x\\y", 1, 1], ["z", 2, 1]], [["x\\\\y", 1, 5], ["z", 2, 5]]);
    expect((await checkClusters(ok.clustersPath, ok.truthPath)).exact).toBe(1);
    const other = files([["a", 1, 1], ["b", 2, 1]], [["a", 1, 5], ["c", 2, 5]]);
    await expect(checkClusters(other.clustersPath, other.truthPath)).rejects.toThrow(/document 2 is not the one/);
  });

  it("exits 1 with a message on unreadable or malformed input", () => {
    const script = fileURLToPath(new URL("../../dist/scripts/quality/clusters-check.js", import.meta.url));
    const run = (...args: string[]) => {
      try {
        execFileSync(process.execPath, [script, ...args], { stdio: "pipe" });
        return { status: 0, stderr: "" };
      } catch (err) {
        const e = err as { status: number; stderr: Buffer };
        return { status: e.status, stderr: e.stderr.toString() };
      }
    };
    const missing = run(join(dir, "none.tsv"), join(dir, "none.truth.tsv"));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^clusters-check: error: .*none.truth.tsv: cannot read/);
    const bad = files([["a", 1, 1]], []);
    writeFileSync(bad.clustersPath, CLUSTERS_HEADER + "a\tfirst\t1\t1\ta\t-\n");
    expect(run(bad.clustersPath, bad.truthPath)).toEqual({ status: 1, stderr: `clusters-check: error: ${bad.clustersPath}:2: malformed row\n` });
  });
});
