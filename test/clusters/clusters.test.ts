import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLUSTERS_HEADER, CLUSTERS_SOURCES_HEADER, readClustersTsv } from "../../src/clusters/clusters-tsv.js";
import { EdgeList } from "../../src/clusters/duplicate-graph.js";
import { UnionFind } from "../../src/clusters/union-find.js";
import { DocIds } from "../../src/output/doc-ids.js";
import { writeGraphOutputs } from "../../src/output/graph-outputs.js";
import { InputError, VertdupError } from "../../src/util/errors.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-clusters-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("UnionFind", () => {
  it("joins components transitively; a set's root is its smallest element", () => {
    const u = new UnionFind(6);
    u.union(4, 3);
    u.union(1, 0);
    u.union(4, 1);
    expect(u.find(3)).toBe(0);
    expect(u.find(2)).toBe(2);
    expect(Array.from(u.roots())).toEqual([0, 0, 2, 0, 0, 5]);
  });
});

describe("clusters.tsv", () => {
  it("round-trips through write and read, ids escaped", async () => {
    const edges = new EdgeList();
    edges.push(0, 4, 0.97312);
    edges.push(4, 5, 0.9);
    const firstOf = Uint32Array.from({ length: 10 }, (_, k) => k);
    const ids = DocIds.fromLists([["a\tx", "b", "c", "d", "e\\", "f\ny", "g", "h", "i", "j"]]);
    await writeGraphOutputs(dir, { documents: 10, firstOf, edges }, ids, [1, 1, 1, 1, 5, 1, 1, 1, 1, 1], { keep: "longest", pairs: { mode: "edges", limit: 0 } });
    const path = join(dir, "clusters.tsv");
    expect(readFileSync(path, "utf8")).toBe(CLUSTERS_HEADER + "a\\tx\t1\t1\t0\te\\\\\t0.9731\ne\\\\\t5\t1\t1\te\\\\\t-\nf\\ny\t6\t1\t0\te\\\\\t0.9000\n");
    const rows = await readClustersTsv(path);
    expect(rows.row(0)).toEqual({ id: "a\tx", cluster: 1, representative: false, dupOf: "e\\", similarity: "0.9731" });
    expect(rows.row(4)?.representative).toBe(true);
    expect(rows.row(5)?.id).toBe("f\ny");
    expect(rows.row(3)).toBeUndefined();
    expect(rows.rows).toBe(3);
  });

  it("rejects a malformed file, or rows out of corpus order, with its line", async () => {
    const path = join(dir, "bad.tsv");
    writeFileSync(path, CLUSTERS_HEADER + "a\t1\t1\t0\te\t0.9\nb\tx\t1\t0\te\t0.9\n");
    await expect(readClustersTsv(path)).rejects.toThrow(InputError);
    await expect(readClustersTsv(path)).rejects.toThrow(/bad.tsv:3: malformed/);
    writeFileSync(path, CLUSTERS_HEADER + "a\t2\t1\t0\te\t0.9\nb\t1\t1\t1\tb\t-\n");
    await expect(readClustersTsv(path)).rejects.toThrow(/bad.tsv:3: document 1 after document 2/);
    writeFileSync(path, "doc\tordinal\n");
    await expect(readClustersTsv(path)).rejects.toThrow(/bad.tsv:1: not a clusters.tsv header/);
    await expect(readClustersTsv(join(dir, "missing.tsv"))).rejects.toThrow(VertdupError);
  });

  it("reads the clusters.tsv of a run with --against: only the new documents' rows (empty index), by their own ordinals", async () => {
    const path = join(dir, "against.tsv");
    writeFileSync(path, CLUSTERS_SOURCES_HEADER + "old7\tbase.idx\t7\t3\t1\told7\t-\nn1\t\t2\t3\t0\told7\t0.9500\nold2\tother.idx\t2\t8\t1\told2\t-\nn2\t\t4\t8\t0\told2\t1.0000\n");
    const rows = await readClustersTsv(path);
    expect(rows.rows).toBe(2);
    expect(rows.row(1)).toEqual({ id: "n1", cluster: 3, representative: false, dupOf: "old7", similarity: "0.9500" });
    expect(rows.row(3)?.dupOf).toBe("old2");
    expect(rows.row(6)).toBeUndefined();
    writeFileSync(path, CLUSTERS_SOURCES_HEADER + "n1\t\t2\t3\t0\told7\n");
    await expect(readClustersTsv(path)).rejects.toThrow(/against.tsv:2: malformed/);
  });
});
