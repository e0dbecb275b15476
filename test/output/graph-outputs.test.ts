import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EdgeList, NO_DOC, type DuplicateGraph } from "../../src/clusters/duplicate-graph.js";
import { GraphClusters, preferred } from "../../src/clusters/graph-clusters.js";
import { DocIds } from "../../src/output/doc-ids.js";
import { writeGraphOutputs } from "../../src/output/graph-outputs.js";
import { escapeField, unescapeField } from "../../src/output/tsv-field.js";
import { DocSources } from "../../src/output/doc-sources.js";
import { VertdupError } from "../../src/core/errors.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-graph-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let runs = 0;
const fresh = () => {
  const d = join(dir, String(runs++));
  mkdirSync(d);
  return d;
};

const rows = (path: string) => readFileSync(path, "utf8").split("\n").slice(1, -1).map((l) => l.split("\t"));

/** A graph from leaders per document (-1: no features) and edges [a, b, similarity] (and their verified cosines). */
function graphOf(firstOf: number[], edges: [number, number, number][], cosines?: number[]): DuplicateGraph {
  const list = new EdgeList();
  for (const [a, b, s] of edges) list.push(a, b, s);
  return { documents: firstOf.length, firstOf: Uint32Array.from(firstOf, (f) => (f < 0 ? NO_DOC : f)), edges: list, ...(cosines ? { cosines: Float64Array.from(cosines) } : {}) };
}

describe("TSV field escaping", () => {
  it("round-trips every string and leaves no tab, line end or lone backslash sequence", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "\t", "\n", "\r", "\\", "t", "n", "é") }), (s) => {
        const e = escapeField(s);
        expect(e).not.toMatch(/[\t\n\r]/);
        expect(unescapeField(e)).toBe(s);
      }),
    );
  });

  it("keeps a backslash before other characters and leaves plain ids alone", () => {
    expect(escapeField("doc-1")).toBe("doc-1");
    expect(escapeField("a\tb\\c\nd\re")).toBe("a\\tb\\\\c\\nd\\re");
    expect(unescapeField("C:\\x")).toBe("C:\\x");
  });
});

describe("DocIds", () => {
  it("gives ids by ordinal and ordinals by id, across parts, growth and any UTF-8", () => {
    const parts = [["a", "žluťoučký", ""], Array.from({ length: 5000 }, (_, k) => `doc-${k}`), ["a"]];
    const ids = DocIds.fromLists(parts);
    const flat = parts.flat();
    expect(ids.length).toBe(flat.length);
    flat.forEach((id, k) => expect(ids.get(k)).toBe(id));
    expect(ids.ordinalOf("žluťoučký")).toBe(1);
    expect(ids.ordinalOf("")).toBe(2);
    expect(ids.ordinalOf("doc-4999")).toBe(5002);
    expect(ids.ordinalOf("a")).toBe(0);
    expect(ids.ordinalOf("missing")).toBeUndefined();
    expect(() => ids.get(flat.length)).toThrow(RangeError);
  });

  it("interns: equal ids get one ordinal, new ones are appended", () => {
    const ids = DocIds.empty();
    const words = Array.from({ length: 3000 }, (_, k) => `w${k % 1000}`);
    const got = words.map((w) => ids.intern(w));
    expect(ids.length).toBe(1000);
    words.forEach((w, k) => expect(ids.get(got[k])).toBe(w));
    expect(got.slice(0, 1000)).toEqual(Array.from({ length: 1000 }, (_, k) => k));
  });
});

describe("writeGraphOutputs", () => {
  // Groups {0, 2, 5} (leader 0) and {3, 6} (leader 3); 1, 4, 7 alone; 8 without features.
  // Edges 0–1 (0.9) and 3–4 (0.95): clusters {0, 1, 2, 5} and {3, 4, 6}.
  const firstOf = [0, 1, 0, 3, 4, 0, 3, 7, -1];
  const ids = DocIds.fromLists([["d0", "d1", "d\t2", "d3", "d4", "d\\5", "d6", "d7", "d8"]]);
  const tokens = [10, 50, 10, 5, 5, 10, 5, 1, 0];

  it("writes groups, edges and clusters, linear files with escaped ids", async () => {
    const out = fresh();
    const g = graphOf(firstOf, [[3, 4, 0.95], [0, 1, 0.9]]);
    const counts = await writeGraphOutputs(out, g, ids, tokens, { keep: "longest", pairs: { mode: "edges", limit: 0 } });
    expect(readFileSync(join(out, "groups.tsv"), "utf8")).toBe("group\tdoc\tordinal\n1\td0\t1\n1\td\\t2\t3\n1\td\\\\5\t6\n2\td3\t4\n2\td6\t7\n");
    expect(readFileSync(join(out, "pairs.tsv"), "utf8")).toBe("doc_a\tdoc_b\tsimilarity\nd0\td1\t0.9000\nd3\td4\t0.9500\n");
    expect(readFileSync(join(out, "clusters.tsv"), "utf8")).toBe(
      "doc\tordinal\tcluster\trepresentative\tdup_of\tsimilarity\n" +
        "d0\t1\t1\t0\td1\t0.9000\n" +
        "d1\t2\t1\t1\td1\t-\n" +
        "d\\t2\t3\t1\t0\td1\t0.9000\n" +
        "d3\t4\t2\t1\td3\t-\n" +
        "d4\t5\t2\t0\td3\t0.9500\n" +
        "d\\\\5\t6\t1\t0\td1\t0.9000\n" +
        "d6\t7\t2\t0\td3\t1.0000\n",
    );
    expect(counts).toEqual({ groups: 2, documentsInGroups: 5, edges: 2, pairLines: 2, clusters: { keep: "longest", clusters: 2, documentsInClusters: 7, duplicates: 5 } });
  });

  it("--pairs all writes every document pair in corpus order, and refuses over the limit before writing", async () => {
    const g = graphOf(firstOf, [[3, 4, 0.95], [0, 1, 0.9]]);
    const out = fresh();
    const counts = await writeGraphOutputs(out, g, ids, tokens, { keep: "first", pairs: { mode: "all", limit: 9 } });
    expect(counts.pairLines).toBe(9);
    expect(rows(join(out, "pairs.tsv"))).toEqual([
      ["d0", "d1", "0.9000"],
      ["d0", "d\\t2", "1.0000"],
      ["d0", "d\\\\5", "1.0000"],
      ["d1", "d\\t2", "0.9000"],
      ["d1", "d\\\\5", "0.9000"],
      ["d\\t2", "d\\\\5", "1.0000"],
      ["d3", "d4", "0.9500"],
      ["d3", "d6", "1.0000"],
      ["d4", "d6", "0.9500"],
    ]);
    const refused = fresh();
    const attempt = writeGraphOutputs(refused, g, ids, tokens, { keep: "first", pairs: { mode: "all", limit: 8 } });
    await expect(attempt).rejects.toThrow(VertdupError);
    await expect(attempt).rejects.toThrow(/9 lines/);
    for (const f of ["groups.tsv", "pairs.tsv", "clusters.tsv"]) expect(existsSync(join(refused, f))).toBe(false);
  });

  it("names a chain's far member's partner, not the representative it was never compared with, with the pair's verified cosine", async () => {
    // A chain d7 (longest, representative) – d3's group {d3, d6} – d4: d4 was found similar to d3 only.
    const out = fresh();
    const chainOf = [0, 1, 0, 3, 4, 0, 3, 7, -1];
    const g = graphOf(chainOf, [[3, 4, 0.95], [0, 1, 0.9], [3, 7, 0.97]], [0.96, 0.93, 0.99]);
    await writeGraphOutputs(out, g, ids, [10, 50, 10, 5, 5, 10, 5, 80, 0], { keep: "longest", pairs: { mode: "edges", limit: 0 } });
    expect(rows(join(out, "clusters.tsv")).map((r) => [r[0], r[4], r[5]])).toEqual([
      ["d0", "d1", "0.9300"],
      ["d1", "d1", "-"],
      ["d\\t2", "d1", "0.9300"],
      ["d3", "d7", "0.9900"],
      ["d4", "d3", "0.9600"],
      ["d\\\\5", "d1", "0.9300"],
      ["d6", "d7", "0.9900"],
      ["d7", "d7", "-"],
    ]);
  });
});

/** A random graph: leaders, edges between distinct leaders (each pair once), token counts. */
const randomGraph = fc
  .record({
    n: fc.integer({ min: 1, max: 40 }),
    seed: fc.array(fc.integer({ min: 0, max: 1 << 30 }), { minLength: 200, maxLength: 200 }),
  })
  .map(({ n, seed }) => {
    let at = 0;
    const next = (m: number) => seed[at++ % seed.length] % m;
    const firstOf: number[] = [];
    const leaders: number[] = [];
    for (let d = 0; d < n; d++) {
      const r = next(10);
      if (r === 0) firstOf.push(-1);
      else if (r < 4 && leaders.length > 0) firstOf.push(leaders[next(leaders.length)]);
      else {
        firstOf.push(d);
        leaders.push(d);
      }
    }
    const seen = new Set<string>();
    const edges: [number, number, number][] = [];
    for (let k = next(2 * n); k > 0 && leaders.length > 1; k--) {
      const a = leaders[next(leaders.length)];
      const b = leaders[next(leaders.length)];
      const key = `${Math.min(a, b)},${Math.max(a, b)}`;
      if (a === b || seen.has(key)) continue;
      seen.add(key);
      edges.push([a, b, 0.5 + next(5000) / 10000]);
    }
    const tokens = Array.from({ length: n }, () => next(4));
    return { firstOf, edges, tokens };
  });

/** Every document pair of the graph, by brute force: [a, b, similarity], a < b, sorted. */
function expandedPairs(firstOf: number[], edges: [number, number, number][]): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (let a = 0; a < firstOf.length; a++) {
    for (let b = a + 1; b < firstOf.length; b++) {
      if (firstOf[a] < 0 || firstOf[b] < 0) continue;
      if (firstOf[a] === firstOf[b]) out.push([a, b, 1]);
      for (const [x, y, s] of edges) if ((x === firstOf[a] && y === firstOf[b]) || (y === firstOf[a] && x === firstOf[b])) out.push([a, b, s]);
    }
  }
  return out;
}

/** Per leader: its distance in edges from the group of `rep`, by repeated relaxation (Infinity: not reached). */
function leaderHops(firstOf: number[], edges: [number, number, number][], rep: number): number[] {
  const hops = firstOf.map(() => Infinity);
  hops[firstOf[rep]] = 0;
  for (let changed = true; changed; ) {
    changed = false;
    for (const [a, b] of edges) {
      for (const [x, y] of [[a, b], [b, a]]) {
        if (hops[y] + 1 < hops[x]) {
          hops[x] = hops[y] + 1;
          changed = true;
        }
      }
    }
  }
  return hops;
}

describe("writeGraphOutputs against brute force", () => {
  const ids = (n: number) => DocIds.fromLists([Array.from({ length: n }, (_, k) => `id${k}`)]);

  it("--pairs all equals the brute-force expansion; clusters equal a union over the expanded pairs", async () => {
    await fc.assert(
      fc.asyncProperty(randomGraph, fc.constantFrom("longest", "first") as fc.Arbitrary<"longest" | "first">, async ({ firstOf, edges, tokens }, keep) => {
        const n = firstOf.length;
        const out = fresh();
        const counts = await writeGraphOutputs(out, graphOf(firstOf, edges), ids(n), tokens, { keep, pairs: { mode: "all", limit: 0 } });
        const pairs = expandedPairs(firstOf, edges);
        expect(rows(join(out, "pairs.tsv"))).toEqual(pairs.map(([a, b, s]) => [`id${a}`, `id${b}`, s.toFixed(4)]));
        expect(counts.pairLines).toBe(pairs.length);
        // Components by repeated relabelling over the expanded pairs.
        const label = Array.from({ length: n }, (_, k) => k);
        for (let changed = true; changed; ) {
          changed = false;
          for (const [a, b] of pairs) {
            const m = Math.min(label[a], label[b]);
            if (label[a] !== m || label[b] !== m) {
              label[a] = label[b] = m;
              changed = true;
            }
          }
        }
        const members = Array.from({ length: n }, (_, d) => d).filter((d) => pairs.some(([a, b]) => a === d || b === d));
        const firsts = [...new Set(members.map((d) => label[d]))].sort((x, y) => x - y);
        const repOf = (l: number) => members.filter((d) => label[d] === l).reduce((r, d) => (preferred(d, r, tokens, keep) ? d : r));
        const expected = members.map((d) => {
          const rep = repOf(label[d]);
          return [`id${d}`, String(d + 1), String(firsts.indexOf(label[d]) + 1), d === rep ? "1" : "0"];
        });
        const written = rows(join(out, "clusters.tsv"));
        expect(written.map((r) => r.slice(0, 4))).toEqual(expected);
        // Each member names a document it is paired with, at that pair's similarity, one edge nearer its representative.
        const hops = (d: number) => leaderHops(firstOf, edges, repOf(label[d]))[firstOf[d]];
        const row = new Map(written.map((r) => [r[0], r]));
        for (const d of members) {
          const r = row.get(`id${d}`)!;
          if (r[3] === "1") {
            expect([r[4], r[5]]).toEqual([`id${d}`, "-"]);
            continue;
          }
          const to = Number(r[4].slice(2));
          const pair = pairs.find(([a, b]) => a === Math.min(d, to) && b === Math.max(d, to) && (firstOf[a] === firstOf[b]) === (hops(d) === 0));
          expect(pair?.[2].toFixed(4)).toBe(r[5]);
          expect(hops(to)).toBe(Math.max(0, hops(d) - 1));
          if (hops(d) === 0) expect(to).toBe(repOf(label[d]));
          const nearer = edges.filter(([a, b]) => (a === firstOf[d] && hops(b) === hops(d) - 1) || (b === firstOf[d] && hops(a) === hops(d) - 1));
          if (hops(d) > 0) expect(r[5]).toBe(Math.max(...nearer.map(([, , s]) => s)).toFixed(4));
        }
        expect(counts.clusters.clusters).toBe(firsts.length);
        rmSync(out, { recursive: true });
      }),
      { numRuns: 150 },
    );
  });

  it("edges mode lists each edge once in corpus order; groups.tsv lists each group of two or more", async () => {
    await fc.assert(
      fc.asyncProperty(randomGraph, async ({ firstOf, edges, tokens }) => {
        const out = fresh();
        await writeGraphOutputs(out, graphOf(firstOf, edges), ids(firstOf.length), tokens, { keep: "first", pairs: { mode: "edges", limit: 1 } });
        const sorted = edges.map(([a, b, s]) => [Math.min(a, b), Math.max(a, b), s] as const).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
        expect(rows(join(out, "pairs.tsv"))).toEqual(sorted.map(([a, b, s]) => [`id${a}`, `id${b}`, s.toFixed(4)]));
        const leaders = [...new Set(firstOf.filter((f) => f >= 0))].sort((x, y) => x - y).filter((l) => firstOf.filter((f) => f === l).length >= 2);
        const expected = leaders.flatMap((l, g) => firstOf.flatMap((f, d) => (f === l ? [[String(g + 1), `id${d}`, String(d + 1)]] : [])));
        expect(rows(join(out, "groups.tsv"))).toEqual(expected);
        rmSync(out, { recursive: true });
      }),
      { numRuns: 100 },
    );
  });
});

describe("GraphClusters at 2^25 documents", () => {
  const n = 2 ** 25;

  it("one identity group of every document is one cluster", () => {
    const g: DuplicateGraph = { documents: n, firstOf: new Uint32Array(n), edges: new EdgeList() };
    const tokens = new Uint32Array(n);
    tokens[n - 1] = 7;
    const c = new GraphClusters(g, tokens, "longest");
    expect(c.counts).toEqual({ keep: "longest", clusters: 1, documentsInClusters: n, duplicates: n - 1 });
    expect(c.representativeOf(12345)).toBe(n - 1);
    expect(c.clusterOf[n - 1]).toBe(1);
    expect(c.similarity(0)).toBe(1);
  });

  it("2^25 singletons are no cluster", () => {
    const firstOf = new Uint32Array(n);
    for (let d = 0; d < n; d++) firstOf[d] = d;
    const c = new GraphClusters({ documents: n, firstOf, edges: new EdgeList() }, new Uint32Array(n), "first");
    expect(c.counts).toEqual({ keep: "first", clusters: 0, documentsInClusters: 0, duplicates: 0 });
    expect([c.clusterOf[0], c.clusterOf[n >> 1], c.clusterOf[n - 1], c.representative.length]).toEqual([0, 0, 0, 0]);
  });
});

describe("writeGraphOutputs with sources (--against)", () => {
  it("writes the clusters with a new document, with their groups and edges, as the whole run does, each document named by index and own ordinal", async () => {
    const ids = (n: number) => DocIds.fromLists([Array.from({ length: n }, (_, k) => `id${k}`)]);
    await fc.assert(
      fc.asyncProperty(randomGraph, fc.nat(), fc.nat(), fc.constantFrom("edges", "all") as fc.Arbitrary<"edges" | "all">, async ({ firstOf, edges, tokens }, x, y, mode) => {
        const n = firstOf.length;
        // Two indices of a and b documents, then the new ones.
        const a = x % (n + 1);
        const b = y % (n - a + 1);
        const sources = new DocSources([{ dir: "i1", documents: a }, { dir: "i2", documents: b }], n - a - b);
        const whole = fresh();
        await writeGraphOutputs(whole, graphOf(firstOf, edges), ids(n), tokens, { keep: "first", pairs: { mode, limit: 0 } });
        const out = fresh();
        const counts = await writeGraphOutputs(out, graphOf(firstOf, edges), ids(n), tokens, { keep: "older", pairs: { mode, limit: 0 }, sources });
        const doc = (id: string) => Number(id.slice(2));
        const named = (id: string) => [id, sources.sourceName(doc(id))];
        const clusters = rows(join(whole, "clusters.tsv"));
        const kept = new Set(clusters.filter((f) => doc(f[0]) >= a + b).map((f) => f[2]));
        const expected = clusters.filter((f) => kept.has(f[2])).map((f) => [...named(f[0]), String(sources.localOrdinal(doc(f[0])) + 1), ...f.slice(2)]);
        expect(readFileSync(join(out, "clusters.tsv"), "utf8").split("\n")[0]).toBe("doc\tindex\tordinal\tcluster\trepresentative\tdup_of\tsimilarity");
        expect(rows(join(out, "clusters.tsv"))).toEqual(expected);
        expect(counts.clusters.clusters).toBe(kept.size);
        const clusterOf = new Map(clusters.map((f) => [f[0], f[2]]));
        const keptDoc = (id: string) => kept.has(clusterOf.get(id) ?? "");
        expect(rows(join(out, "pairs.tsv"))).toEqual(rows(join(whole, "pairs.tsv")).filter((f) => keptDoc(f[0])).map((f) => [...named(f[0]), ...named(f[1]), f[2]]));
        expect(readFileSync(join(out, "pairs.tsv"), "utf8").split("\n")[0]).toBe("doc_a\tindex_a\tdoc_b\tindex_b\tsimilarity");
        const groups = rows(join(whole, "groups.tsv")).filter((f) => keptDoc(f[1]));
        expect(rows(join(out, "groups.tsv"))).toEqual(groups.map((f) => [f[0], ...named(f[1]), String(sources.localOrdinal(doc(f[1])) + 1)]));
        expect(counts.documentsInGroups).toBe(groups.length);
        rmSync(out, { recursive: true });
        rmSync(whole, { recursive: true });
      }),
      { numRuns: 100 },
    );
  });
});
