import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assignClusters } from "../../src/clusters/assign.js";
import { CLUSTERS_HEADER, readClustersTsv, writeClustersTsv } from "../../src/clusters/clusters-tsv.js";
import { UnionFind } from "../../src/clusters/union-find.js";
import { InputError } from "../../src/util/errors.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-clusters-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const N = 10;
/** Sorted keys and a similarity lookup for pairs given as [a, b, sim]. */
function pairs(list: [number, number, number][]) {
  const sims = new Map(list.map(([a, b, s]) => [Math.min(a, b) * N + Math.max(a, b), s]));
  const keys = Float64Array.from(sims.keys()).sort();
  return { keys, sim: (a: number, b: number) => sims.get(a * N + b) as number };
}

describe("UnionFind", () => {
  it("joins components transitively", () => {
    const u = new UnionFind(6);
    u.union(0, 1);
    u.union(3, 4);
    u.union(1, 4);
    expect(u.find(0)).toBe(u.find(3));
    expect(u.find(2)).not.toBe(u.find(0));
    expect(u.find(5)).toBe(5);
  });
});

describe("assignClusters", () => {
  // Components {1, 3, 7} (chain 1–3–7) and {2, 8}; token counts decide `longest`.
  const p = pairs([[1, 3, 0.9], [3, 7, 0.85], [2, 8, 0.95]]);
  const tokens = [0, 100, 50, 300, 0, 0, 0, 300, 50, 0];

  it("keeps the longest document, ties by corpus order; similarity to the representative", () => {
    const m = assignClusters(p.keys, N, p.sim, tokens, "longest");
    expect(m).toEqual([
      { doc: 1, cluster: 1, representative: 3, similarity: 0.9 },
      { doc: 2, cluster: 2, representative: 2, similarity: 0.95 },
      { doc: 3, cluster: 1, representative: 3, similarity: 0.9 },
      { doc: 7, cluster: 1, representative: 3, similarity: 0.85 },
      { doc: 8, cluster: 2, representative: 2, similarity: 0.95 },
    ]);
  });

  it("keeps the first document with `first`; a member without a pair to it gets its best similarity", () => {
    const m = assignClusters(p.keys, N, p.sim, tokens, "first");
    expect(m.map((x) => [x.doc, x.cluster, x.representative])).toEqual([[1, 1, 1], [2, 2, 2], [3, 1, 1], [7, 1, 1], [8, 2, 2]]);
    expect(m.find((x) => x.doc === 7)?.similarity).toBe(0.85);
  });

  it("never marks a longer document as a copy of a shorter one", () => {
    const rand = (i: number) => ((i * 2654435761) >>> 0) % 97;
    const list: [number, number, number][] = [];
    for (let i = 0; i < 30; i++) list.push([rand(i) % N, rand(i + 50) % N, 0.9]);
    const q = pairs(list.filter(([a, b]) => a !== b));
    const t = Array.from({ length: N }, (_, i) => rand(i + 7) % 5);
    for (const m of assignClusters(q.keys, N, q.sim, t, "longest")) {
      expect(t[m.representative]).toBeGreaterThanOrEqual(t[m.doc]);
      if (t[m.representative] === t[m.doc]) expect(m.representative).toBeLessThanOrEqual(m.doc);
    }
  });

  it("no pairs, no clusters", () => {
    expect(assignClusters(new Float64Array(0), N, () => 1, tokens, "longest")).toEqual([]);
  });
});

describe("clusters.tsv", () => {
  it("round-trips through write and read", async () => {
    const p = pairs([[0, 4, 0.97312], [4, 5, 0.9]]);
    const ids = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
    const path = join(dir, "clusters.tsv");
    await writeClustersTsv(path, assignClusters(p.keys, N, p.sim, [1, 1, 1, 1, 5, 1, 1, 1, 1, 1], "longest"), ids);
    expect(readFileSync(path, "utf8")).toBe(CLUSTERS_HEADER + "a\t1\t1\t0\te\t0.9731\ne\t5\t1\t1\te\t-\nf\t6\t1\t0\te\t0.9000\n");
    const rows = await readClustersTsv(path);
    expect(rows.get(0)).toEqual({ id: "a", cluster: 1, representative: false, dupOf: "e", similarity: "0.9731" });
    expect(rows.get(4)?.representative).toBe(true);
  });

  it("rejects a malformed file with its line", async () => {
    const path = join(dir, "bad.tsv");
    writeFileSync(path, CLUSTERS_HEADER + "a\t1\t1\t0\te\t0.9\nb\tx\t1\t0\te\t0.9\n");
    await expect(readClustersTsv(path)).rejects.toThrow(InputError);
    await expect(readClustersTsv(path)).rejects.toThrow(/bad.tsv:3: malformed/);
  });
});
