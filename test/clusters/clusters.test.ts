import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLUSTERS_HEADER, CLUSTERS_SOURCES_HEADER, readClustersTsv } from "../../src/output/clusters-tsv.js";
import { EdgeList, NO_DOC, type DuplicateGraph } from "../../src/clusters/duplicate-graph.js";
import { GraphClusters } from "../../src/clusters/graph-clusters.js";
import { UnionFind } from "../../src/util/union-find.js";
import { DocIds } from "../../src/output/doc-ids.js";
import { writeGraphOutputs } from "../../src/output/graph-outputs.js";
import { InputError, VertdupError } from "../../src/core/errors.js";

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

/**
 * A random duplicate graph: each document has no features, leads its own identity group or
 * joins an earlier leader's; edges join distinct leaders, each pair once. Token counts from a
 * few values, so that `longest` meets ties.
 */
const graphs = fc
  .array(fc.tuple(fc.nat({ max: 9 }), fc.nat(), fc.nat({ max: 3 })), { minLength: 1, maxLength: 40 })
  .chain((docs) => fc.tuple(fc.constant(docs), fc.array(fc.tuple(fc.nat(), fc.nat(), fc.double({ min: 0.5, max: 1, noNaN: true })), { maxLength: 60 })))
  .map(([docs, picks]) => {
    const n = docs.length;
    const firstOf = new Uint32Array(n);
    const leaders: number[] = [];
    docs.forEach(([kind, pick], d) => {
      if (kind === 0) firstOf[d] = NO_DOC;
      else if (kind < 4 && leaders.length > 0) firstOf[d] = leaders[pick % leaders.length];
      else leaders.push((firstOf[d] = d));
    });
    const edges = new EdgeList();
    const seen = new Set<string>();
    for (const [x, y, sim] of picks) {
      if (leaders.length < 2) break;
      const a = leaders[x % leaders.length];
      const b = leaders[y % leaders.length];
      const key = `${Math.min(a, b)},${Math.max(a, b)}`;
      if (a === b || seen.has(key)) continue;
      seen.add(key);
      edges.push(a, b, sim);
    }
    const graph: DuplicateGraph = { documents: n, firstOf, edges };
    return { graph, tokens: docs.map(([, , t]) => t) };
  });

/** The graph's neighbours of each document: its identity group's leader and members, the edges' ends. */
function neighbours({ documents, firstOf, edges }: DuplicateGraph): number[][] {
  const next: number[][] = Array.from({ length: documents }, () => []);
  const link = (a: number, b: number) => {
    next[a].push(b);
    next[b].push(a);
  };
  for (let d = 0; d < documents; d++) if (firstOf[d] !== NO_DOC && firstOf[d] !== d) link(d, firstOf[d]);
  for (let k = 0; k < edges.length; k++) link(edges.a(k), edges.b(k));
  return next;
}

/** The documents reachable from d in the graph (d included), by breadth-first search. */
function reachable(next: number[][], d: number): Set<number> {
  const seen = new Set([d]);
  const queue = [d];
  while (queue.length > 0) {
    for (const m of next[queue.shift()!]) {
      if (seen.has(m)) continue;
      seen.add(m);
      queue.push(m);
    }
  }
  return seen;
}

describe("GraphClusters (property)", () => {
  it("clusters are the graph's components of two or more; every member reaches its representative; the keep policy picks it", () => {
    fc.assert(
      fc.property(graphs, fc.constantFrom("longest", "first") as fc.Arbitrary<"longest" | "first">, ({ graph, tokens }, keep) => {
        const c = new GraphClusters(graph, tokens, keep);
        const next = neighbours(graph);
        let members = 0;
        let clusters = 0;
        for (let d = 0; d < graph.documents; d++) {
          const component = reachable(next, d);
          if (component.size < 2) {
            expect(c.clusterOf[d]).toBe(0);
            continue;
          }
          members++;
          const cluster = c.clusterOf[d];
          const rep = c.representativeOf(d);
          expect(component.has(rep)).toBe(true);
          for (const m of component) expect(c.clusterOf[m]).toBe(cluster);
          // longest: the most tokens, ties to the earliest; first: the earliest.
          const best = [...component].reduce((r, m) => (keep === "longest" && tokens[m] !== tokens[r] ? (tokens[m] > tokens[r] ? m : r) : Math.min(r, m)));
          expect(rep).toBe(best);
          // Clusters are numbered in corpus order of their first documents.
          if (Math.min(...component) === d) expect(cluster).toBe(++clusters);
        }
        expect(c.counts).toEqual({ keep, clusters, documentsInClusters: members, duplicates: members - clusters });
        expect(c.representative.length).toBe(clusters);
      }),
      { numRuns: 300 },
    );
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

describe("DocIds.repeats", () => {
  it("counts the documents whose id an earlier document has, as brute force does (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("1", "2", "a", "é", ""), { maxLength: 30 }), fc.boolean(), (list, looked) => {
        const ids = DocIds.fromLists([list]);
        // A table made earlier by a lookup does not change the answer.
        if (looked) ids.ordinalOf("a");
        const firsts = list.filter((id, k) => list.indexOf(id) !== k);
        const first = list.findIndex((id, k) => list.indexOf(id) !== k);
        expect(ids.repeats()).toEqual(first === -1 ? { documents: 0 } : { documents: firsts.length, first });
        expect(ids.ordinalOf("a")).toBe(list.includes("a") ? list.indexOf("a") : undefined);
      }),
    );
  });
});
