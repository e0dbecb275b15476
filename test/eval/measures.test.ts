import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deviation, retrieval } from "../../src/eval/measures.js";
import { thresholdRange } from "../../src/eval/sweep.js";
import { comparePairs, formatReport, type PairScorer } from "../../src/eval/compare.js";
import { DocIds } from "../../src/output/doc-ids.js";
import { readPairsFile, readSampleList, writePairsFile, type PairTable } from "../../src/eval/pairs-file.js";
import { VirtualPairs, type GroupRows } from "../../src/eval/run-pairs.js";
import { VertdupError } from "../../src/core/errors.js";

describe("precision, recall, F", () => {
  it("from a 2×2 table", () => {
    // 4 reference pairs, 5 candidates, 3 in common: P = 3/5, R = 3/4, F = 2·0.6·0.75/1.35 = 2/3.
    const r = retrieval(4, 5, 3);
    expect(r).toMatchObject({ reference: 4, candidate: 5, truePositives: 3, precision: 0.6, recall: 0.75 });
    expect(r.f).toBeCloseTo(2 / 3, 15);
  });

  it("empty sets", () => {
    expect(retrieval(0, 0, 0)).toMatchObject({ precision: 1, recall: 1, f: 1 });
    expect(retrieval(3, 0, 0)).toMatchObject({ precision: 1, recall: 0 });
    expect(retrieval(0, 2, 0)).toMatchObject({ precision: 0, recall: 1 });
    expect(retrieval(2, 2, 0).f).toBe(0);
  });
});

describe("L1, L2, S", () => {
  it("hand-computed", () => {
    // Pairs (c, h): (0.501, 0.60), (0.509, 0.70), (0.80, 0.80), (0.805, 0.86), (0.809, 0.89), (1, 0.95).
    const c = [0.501, 0.509, 0.8, 0.805, 0.809, 1];
    const h = [0.6, 0.7, 0.8, 0.86, 0.89, 0.95];
    // |h − c| = 0.099, 0.191, 0, 0.055, 0.081, 0.05 → L1 = 0.476 / 6.
    // squares = 0.009801, 0.036481, 0, 0.003025, 0.006561, 0.0025 → L2 = 0.058368 / 6.
    // Bins of 0.01: {0.501, 0.509} → bin 50: h 0.6, 0.7, σ = 0.05;
    // {0.80, 0.805, 0.809} → bin 80: h 0.80, 0.86, 0.89, mean 0.85, σ = √((0.0025 + 0.0001 + 0.0016)/3) = √0.0014;
    // {1} → the last bin (99) alone: not counted. S = (0.05 + √0.0014) / 2.
    const d = deviation(c, h);
    expect(d.pairs).toBe(6);
    expect(d.l1).toBeCloseTo(0.476 / 6, 12);
    expect(d.l2).toBeCloseTo(0.058368 / 6, 12);
    expect(d.bins).toBe(2);
    expect(d.s).toBeCloseTo((0.05 + Math.sqrt(0.0014)) / 2, 12);
  });

  it("c = 1 falls in the last bin with c = 0.995", () => {
    const d = deviation([0.995, 1], [0.9, 1]);
    expect(d.bins).toBe(1);
    expect(d.s).toBeCloseTo(0.05, 12);
  });

  it("no pairs", () => {
    expect(deviation([], [])).toEqual({ pairs: 0, l1: 0, l2: 0, s: 0, bins: 0 });
  });
});

/** A pairs table over `ids` from [x, y, similarity] entries. */
function tableOf(ids: DocIds, path: string, entries: [string, string, number][]): PairTable {
  return {
    path,
    ids,
    a: Uint32Array.from(entries, ([x]) => ids.intern(x)),
    b: Uint32Array.from(entries, ([, y]) => ids.intern(y)),
    similarity: Float64Array.from(entries, ([, , s]) => s),
  };
}

/** groups.tsv rows from lists of ids, the first of each list its leader. */
function groupsOf(ids: DocIds, groups: string[][]): GroupRows {
  const rows = groups.flatMap((g) => g.map((id) => [ids.intern(id), ids.intern(g[0])]));
  return { path: "groups.tsv", docs: Uint32Array.from(rows, (r) => r[0]), leaders: Uint32Array.from(rows, (r) => r[1]) };
}

describe("sweep", () => {
  it("precision and recall as the candidate threshold moves (tiny example)", () => {
    const ids = DocIds.empty();
    const reference = tableOf(ids, "ref", [["p1", "p2", 1], ["q1", "q2", 1], ["r1", "r2", 1]]);
    const candidate = new VirtualPairs(
      { table: tableOf(ids, "cand", [["p1", "p2", 0.99], ["x1", "x2", 0.95], ["q1", "q2", 0.93], ["y1", "y2", 0.91], ["r1", "r2", 0.85]]), groups: null },
      ids,
    );
    const rows = comparePairs(reference, candidate, { referenceThreshold: 0, candidateThreshold: 0, sweep: thresholdRange(0.9, 1, 0.05) }).sweep;
    expect(rows.map((r) => r.threshold)).toEqual([0.9, 0.95, 1]);
    // ≥ 0.90: p x q y → TP 2, P 2/4, R 2/3; ≥ 0.95: p x → 1, 1/2, 1/3; ≥ 1: none → P 1, R 0.
    expect(rows.map((r) => [r.candidate, r.truePositives, r.precision, r.recall])).toEqual([
      [4, 2, 0.5, 2 / 3],
      [2, 1, 0.5, 1 / 3],
      [0, 0, 1, 0],
    ]);
    expect(rows[0].f).toBeCloseTo((2 * 0.5 * (2 / 3)) / (0.5 + 2 / 3), 15);
  });

  it("threshold ranges do not drift", () => {
    expect(thresholdRange(0.8, 0.85, 0.01)).toEqual([0.8, 0.81, 0.82, 0.83, 0.84, 0.85]);
    expect(() => thresholdRange(1, 0.5, 0.1)).toThrow(RangeError);
  });
});

describe("pairs files", () => {
  const dir = mkdtempSync(join(tmpdir(), "vertdup-eval-"));
  const ids = DocIds.fromLists([["d1", "d2", "d3", "d4"]]);
  const pairs = { a: Uint32Array.from([2, 0, 0]), b: Uint32Array.from([3, 2, 1]), similarity: Float64Array.from([0.5, 0.91234, 1]) };

  for (const name of ["p.tsv", "p.tsv.gz", "p.tsv.zst"]) {
    it(`round trip through ${name}, sorted by corpus order`, async () => {
      const path = join(dir, name);
      await writePairsFile(path, pairs, ids);
      const t = await readPairsFile(path);
      expect(Array.from(t.a, (a, k) => [t.ids.get(a), t.ids.get(t.b[k]), t.similarity[k]])).toEqual([
        ["d1", "d2", 1],
        ["d1", "d3", 0.9123],
        ["d3", "d4", 0.5],
      ]);
    });
  }

  it("plain output is the pairs.tsv format", async () => {
    const path = join(dir, "plain.tsv");
    await writePairsFile(path, pairs, ids);
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(path, "utf8")).toBe("doc_a\tdoc_b\tsimilarity\nd1\td2\t1.0000\nd1\td3\t0.9123\nd3\td4\t0.5000\n");
  });

  it("bad lines are errors naming file and line", async () => {
    const cases: [string, RegExp][] = [
      ["doc_a\tdoc_b\tsimilarity\nd1\td2\n", /bad\.tsv:2: expected doc_a/],
      ["d1\td2\tx\n", /bad\.tsv:1: similarity must be a number/],
      ["d1\td2\t1.5\n", /bad\.tsv:1: similarity must be a number/],
      ["d1\td1\t1\n", /bad\.tsv:1: document d1 is paired with itself/],
      ["d1\td2\t0.9\nd2\td1\t0.9\n", /bad\.tsv:2: pair d2 d1 is listed twice/],
    ];
    for (const [text, message] of cases) {
      const path = join(dir, "bad.tsv");
      writeFileSync(path, text);
      await expect(readPairsFile(path)).rejects.toThrow(message);
    }
    await expect(readPairsFile(join(dir, "missing.tsv"))).rejects.toThrow(VertdupError);
  });

  it("sample lists map ids to ordinals; unknown ids name their line", async () => {
    const path = join(dir, "sample.txt");
    writeFileSync(path, "d3\n\nd1\nd3\n");
    expect([...(await readSampleList(path, ids))]).toEqual([1, 0, 1, 0]);
    const escaped = DocIds.fromLists([["a\tb", "c\\d"]]);
    writeFileSync(path, "c\\\\d\na\\tb\n");
    expect([...(await readSampleList(path, escaped))]).toEqual([1, 1]);
    writeFileSync(path, "d3\nd9\n");
    await expect(readSampleList(path, ids)).rejects.toThrow(/sample\.txt:2: document "d9" is not in the corpus/);
  });
});

describe("comparePairs", () => {
  const ids = DocIds.empty();
  const reference = tableOf(ids, "ref", [
    ["a", "b", 0.97],
    ["a", "c", 0.92],
    ["c", "d", 0.85],
  ]);
  const candidate = new VirtualPairs(
    {
      table: tableOf(ids, "cand", [
        ["b", "a", 0.96],
        ["c", "d", 0.9],
        ["b", "d", 0.91],
      ]),
      groups: null,
    },
    ids,
  );

  it("applies both thresholds, sweeps, and scores the compared pairs", () => {
    const key = (x: string, y: string) => (x < y ? `${x}\t${y}` : `${y}\t${x}`);
    const cos: Record<string, number> = { "a\tb": 0.97, "a\tc": 0.92, "b\td": 0.8 };
    const ham: Record<string, number> = { "a\tb": 0.95, "a\tc": 0.94, "b\td": 0.91 };
    const ord = ["a", "b", "c", "d"];
    const scorer: PairScorer = {
      ordinalOf: (id) => (id === "d" ? undefined : ord.indexOf(id)),
      cosine: (x, y) => cos[key(ord[x], ord[y])],
      hamming: (x, y) => ham[key(ord[x], ord[y])],
    };
    const r = comparePairs(reference, candidate, { referenceThreshold: 0.9, candidateThreshold: 0.905, sweep: [0.9, 0.95] }, scorer);
    // Reference ≥ 0.9: ab, ac. Candidate ≥ 0.905: ab, bd. TP = 1.
    expect(r.retrieval).toMatchObject({ reference: 2, candidate: 2, truePositives: 1, precision: 0.5, recall: 0.5 });
    // Sweep over the whole candidate file against the reference ≥ 0.9: ≥ 0.9 → ab, cd, bd (TP 1); ≥ 0.95 → ab.
    expect(r.sweep.map((s) => [s.threshold, s.candidate, s.truePositives])).toEqual([
      [0.9, 3, 1],
      [0.95, 1, 1],
    ]);
    // Compared: ab, ac, bd; bd has an unknown document → skipped. L1 = (0.02 + 0.02) / 2.
    expect(r.deviation?.pairs).toBe(2);
    expect(r.deviation?.skipped).toBe(1);
    expect(r.deviation?.l1).toBeCloseTo(0.02, 12);
    expect(formatReport(r)).toContain("found 1 of 2: recall  50.00 %, precision  50.00 %");
  });

  it("counts a run's groups as every pair they stand for, without expanding them", () => {
    const ids = DocIds.empty();
    // Groups {g1 g2 g3} and {h1 h2}, an edge g1–h1 (0.9) and x–y (0.8): 3 + 1 + 6 + 1 = 11 pairs.
    const groups = groupsOf(ids, [["g1", "g2", "g3"], ["h1", "h2"]]);
    const run = { table: tableOf(ids, "pairs.tsv", [["g1", "h1", 0.9], ["x", "y", 0.8]]), groups };
    const reference = tableOf(ids, "ref", [["g2", "g3", 1], ["h2", "g3", 0.9], ["x", "y", 0.8], ["x", "g1", 0.9], ["h1", "h2", 1]]);
    const r = comparePairs(reference, new VirtualPairs(run, ids), { referenceThreshold: 0, candidateThreshold: 0.85, sweep: [0.5, 0.95] });
    expect(r.retrieval).toMatchObject({ reference: 5, candidate: 10, truePositives: 3 });
    expect(r.sweep.map((s) => [s.threshold, s.candidate, s.truePositives])).toEqual([
      [0.5, 11, 4],
      [0.95, 4, 2],
    ]);
  });
});
