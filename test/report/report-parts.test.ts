import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { scatterSvg } from "../../src/eval/svg-plot.js";
import { readCalibration } from "../../src/eval/calibration.js";
import { readDocTexts } from "../../src/report/doc-texts.js";
import { scanClusters, scanGroups, scanPairs, type SampledPair } from "../../src/report/output-scan.js";
import { diffWindows, sizePoints } from "../../src/report/report-html.js";
import { tokenDiff } from "../../src/report/token-diff.js";
import { VertdupError } from "../../src/core/errors.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = (text: string) => {
  const path = join(dir, `f${++files}.tsv`);
  writeFileSync(path, text);
  return path;
};

/** Length of a longest common subsequence, the textbook forward recurrence. */
function lcsLength(a: readonly string[], b: readonly string[]): number {
  const t = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) t[i][j] = a[i - 1] === b[j - 1] ? t[i - 1][j - 1] + 1 : Math.max(t[i - 1][j], t[i][j - 1]);
  return t[a.length][b.length];
}

describe("tokenDiff", () => {
  it("marks a longest common subsequence: the same tokens in the same order on both sides, as many as the LCS has", () => {
    const tokens = fc.array(fc.constantFrom("a", "b", "c", "d", "the", ","), { maxLength: 40 });
    fc.assert(
      fc.property(tokens, tokens, (a, b) => {
        const { aSame, bSame } = tokenDiff(a, b)!;
        const keptA = a.filter((_, k) => aSame[k] === 1);
        const keptB = b.filter((_, k) => bSame[k] === 1);
        expect(keptA).toEqual(keptB);
        expect(keptA.length).toBe(lcsLength(a, b));
      }),
      { numRuns: 300 },
    );
  });

  it("marks nothing in equal lists and everything in disjoint ones", () => {
    expect([...tokenDiff(["x", "y"], ["x", "y"])!.aSame]).toEqual([1, 1]);
    const d = tokenDiff(["x", "y"], ["z"])!;
    expect([...d.aSame, ...d.bSame]).toEqual([0, 0, 0]);
  });

  it("aligns long documents that differ in a few places, and gives up past its edits", () => {
    const a = Array.from({ length: 20_000 }, (_, k) => `w${k}`);
    const b = a.map((w, k) => (k === 15_000 ? "other" : w)).filter((_, k) => k !== 300);
    const { aSame, bSame } = tokenDiff(a, b)!;
    expect([...aSame.keys()].filter((k) => aSame[k] === 0)).toEqual([300, 15_000]);
    expect([...bSame.keys()].filter((k) => bSame[k] === 0)).toEqual([14_999]);
    expect(tokenDiff(a, b, 2)).toBeNull();
  });
});

describe("diffWindows", () => {
  it("puts 12 tokens of context around each difference and merges differences whose contexts touch", () => {
    const a = Array.from({ length: 1000 }, (_, k) => `w${k}`);
    const b = a.map((w, k) => (k === 700 || k === 720 ? "x" : w)).filter((_, k) => k !== 100);
    const windows = diffWindows(tokenDiff(a, b)!);
    expect(windows).toEqual([
      { a0: 88, a1: 113, b0: 88, b1: 112 },
      { a0: 688, a1: 733, b0: 687, b1: 732 },
    ]);
    expect(diffWindows(tokenDiff(a, a)!)).toEqual([]);
  });
});

describe("scanGroups", () => {
  it("draws whole groups uniformly, each with its first two documents, size and places", async () => {
    const rows = Array.from({ length: 50 }, (_, g) => Array.from({ length: 2 + (g % 3) }, (_, k) => `${g + 1}\td${g}\\t${k}\t${g * 10 + k + 1}\n`).join("")).join("");
    const path = file("group\tdoc\tordinal\n" + rows);
    const s = await scanGroups(path, 10, 3);
    expect(s.groups).toBe(50);
    expect(s.sample).toHaveLength(10);
    expect(s).toEqual(await scanGroups(path, 10, 3));
    for (const g of s.sample) {
      const k = g.group - 1;
      expect(g).toEqual({ group: g.group, size: 2 + (k % 3), a: `d${k}\t0`, b: `d${k}\t1`, placeA: { source: "", ordinal: k * 10 }, placeB: { source: "", ordinal: k * 10 + 1 } });
    }
    const all = await scanGroups(path, 100, 3);
    expect(all.sample.map((g) => g.group)).toEqual(Array.from({ length: 50 }, (_, g) => g + 1));
    const sourced = await scanGroups(file("group\tdoc\tindex\tordinal\n4\told\tbase.idx\t7\n4\tnew\t\t2\n"), 5, 1);
    expect(sourced.sample).toEqual([{ group: 4, size: 2, a: "old", b: "new", placeA: { source: "base.idx", ordinal: 6 }, placeB: { source: "", ordinal: 1 } }]);
    await expect(scanGroups(file("group\tdoc\tordinal\n1\tx\tzz\n"), 5, 1)).rejects.toThrow(/f\d+\.tsv:2: expected group, doc, ordinal/);
  });
});

const pairsFile = (n: number, cosine = false) =>
  file(`doc_a\tdoc_b\tsimilarity${cosine ? "\tcosine" : ""}\n` + Array.from({ length: n }, (_, k) => `a${k}\tb\\t${k}\t${(0.9 + (k % 10) / 100).toFixed(4)}${cosine ? `\t${(0.5 + (k % 5) / 10).toFixed(4)}` : ""}\n`).join(""));

describe("scanPairs", () => {
  it("counts every line into the histogram and draws the same uniform sample for the same seed", async () => {
    const path = pairsFile(100);
    const s = await scanPairs(path, 20, 7);
    expect(s.pairs).toBe(100);
    expect(s.similarity.reduce((x, y) => x + y, 0)).toBe(100);
    expect(s.similarity[90]).toBe(10);
    expect(s.similarity[99]).toBe(10);
    expect(s.cosine).toBeUndefined();
    expect(s.sample).toHaveLength(20);
    expect(s.sample.map((p) => p.line)).toEqual([...s.sample.map((p) => p.line)].sort((x, y) => x - y));
    for (const p of s.sample) expect(p).toEqual({ line: p.line, a: `a${p.line - 1}`, b: `b\t${p.line - 1}`, similarity: Number((0.9 + ((p.line - 1) % 10) / 100).toFixed(4)) });
    expect(await scanPairs(path, 20, 7)).toEqual(s);
    expect((await scanPairs(path, 20, 8)).sample).not.toEqual(s.sample);
    expect((await scanPairs(path, 200, 7)).sample.map((p) => p.line)).toEqual(Array.from({ length: 100 }, (_, k) => k + 1));
  });

  it("draws every line about equally often (reservoir sampling is uniform)", async () => {
    const path = pairsFile(50);
    const hits = new Array<number>(51).fill(0);
    for (let seed = 0; seed < 200; seed++) for (const p of (await scanPairs(path, 10, seed)).sample) hits[p.line]++;
    // Each line: 200 · 10/50 = 40 expected, standard deviation ≈ 5.7.
    for (let line = 1; line <= 50; line++) expect(hits[line]).toBeGreaterThan(15);
    for (let line = 1; line <= 50; line++) expect(hits[line]).toBeLessThan(70);
  });

  it("reads a cosine column when pairs.tsv has one", async () => {
    const s = await scanPairs(pairsFile(10, true), 3, 1);
    expect(s.cosine?.reduce((x, y) => x + y, 0)).toBe(10);
    expect(s.cosine?.[50]).toBe(2);
    for (const p of s.sample) expect(p.cosine).toBe(Number((0.5 + ((p.line - 1) % 5) / 10).toFixed(4)));
  });

  it("finds the similarity and cosine columns by name", async () => {
    const s = await scanPairs(file("doc_a\tdoc_b\tcosine\tsimilarity\nx\ty\t0.5\t0.97\n"), 5, 1);
    expect(s.sample).toEqual([{ line: 1, a: "x", b: "y", similarity: 0.97, cosine: 0.5 }]);
  });

  it("reads the index columns of a run with --against (escaped like the ids)", async () => {
    const s = await scanPairs(file("doc_a\tindex_a\tdoc_b\tindex_b\tsimilarity\nold\\t1\tbase\\tidx\tnew\t\t0.9\n"), 5, 1);
    expect(s.sample).toEqual([{ line: 1, a: "old\t1", sourceA: "base\tidx", b: "new", sourceB: "", similarity: 0.9 }]);
    await expect(scanPairs(file("doc_a\tindex_a\tdoc_b\tsimilarity\n"), 5, 1)).rejects.toThrow(/f\d+\.tsv:1: expected the header doc_a<TAB>doc_b<TAB>similarity \(with --against/);
  });

  it("names the file and line of a similarity that is not a number", async () => {
    await expect(scanPairs(file("doc_a\tdoc_b\tsimilarity\nx\ty\t0.9\nx\tz\tzz\n"), 5, 1)).rejects.toThrow(/f\d+\.tsv:3: similarity is not a number/);
  });
});

describe("scanClusters", () => {
  /** Documents 0…n−1 labelled with a group each; clusters numbered in corpus order of their first documents. */
  const labels = fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 1, maxLength: 80 });

  it("finds the sizes, the largest clusters with their representatives and members, and places sampled pairs", async () => {
    await fc.assert(
      fc.asyncProperty(labels, fc.integer({ min: 1, max: 6 }), async (raw, top) => {
        const number = new Map<number, number>();
        const rows: { doc: number; cluster: number }[] = [];
        raw.forEach((g, doc) => {
          if (raw.filter((x) => x === g).length < 2) return;
          if (!number.has(g)) number.set(g, number.size + 1);
          rows.push({ doc, cluster: number.get(g)! });
        });
        // The representative: the last member of each cluster.
        const rep = new Map<number, number>();
        for (const r of rows) rep.set(r.cluster, r.doc);
        const text = "doc\tordinal\tcluster\trepresentative\tdup_of\tsimilarity\n" + rows.map((r) => `d${r.doc}\t${r.doc + 1}\t${r.cluster}\t${rep.get(r.cluster) === r.doc ? 1 : 0}\td${rep.get(r.cluster)}\t-\n`).join("");
        const members = (c: number) => rows.filter((r) => r.cluster === c).map((r) => r.doc);
        const pairs: SampledPair[] = rows.length === 0 ? [] : [{ line: 1, a: `d${members(1)[0]}`, b: `d${members(1)[1]}`, similarity: 1 }, { line: 2, a: "nobody", b: `d${members(1)[0]}`, similarity: 1 }];
        const s = await scanClusters(file(text), pairs, top, 2);
        expect(s.documents).toBe(rows.length);
        expect([...s.sizes]).toEqual(Array.from({ length: number.size }, (_, c) => members(c + 1).length));
        const expected = Array.from({ length: number.size }, (_, c) => c + 1)
          .sort((x, y) => members(y).length - members(x).length || x - y)
          .slice(0, top);
        expect(s.largest.map((l) => l.cluster)).toEqual(expected);
        for (const l of s.largest) {
          expect(l.size).toBe(members(l.cluster).length);
          expect(l.representative).toEqual({ source: "", ordinal: rep.get(l.cluster) });
          expect(l.representativeId).toBe(`d${rep.get(l.cluster)}`);
          expect(l.members).toEqual(members(l.cluster).filter((d) => d !== rep.get(l.cluster)).slice(0, 2).map((d) => `d${d}`));
        }
        if (rows.length > 0) {
          expect(s.pairPlaces[0]).toEqual({ a: { source: "", ordinal: members(1)[0] }, b: { source: "", ordinal: members(1)[1] } });
          expect(s.pairPlaces[1]).toBeUndefined();
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe("scanClusters with --against", () => {
  /** Documents labelled with a group each, the first `old` of them from the index `idx`; only groups with a new document written. */
  const corpus = fc.record({ labels: fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 1, maxLength: 80 }), old: fc.integer({ min: 0, max: 80 }) });

  it("keeps the clusters' numbers (with gaps), places documents in their sources, and pairs by id and index", async () => {
    await fc.assert(
      fc.asyncProperty(corpus, fc.integer({ min: 1, max: 6 }), async ({ labels, old }, top) => {
        const number = new Map<number, number>();
        const all: { doc: number; cluster: number }[] = [];
        labels.forEach((g, doc) => {
          if (labels.filter((x) => x === g).length < 2) return;
          if (!number.has(g)) number.set(g, number.size + 1);
          all.push({ doc, cluster: number.get(g)! });
        });
        const written = new Set(all.filter((r) => r.doc >= old).map((r) => r.cluster));
        const rows = all.filter((r) => written.has(r.cluster));
        // --keep older: the first member represents its cluster.
        const rep = new Map<number, number>();
        for (const r of rows) if (!rep.has(r.cluster)) rep.set(r.cluster, r.doc);
        const place = (doc: number) => (doc < old ? { source: "idx", ordinal: doc } : { source: "", ordinal: doc - old });
        // The same id in the index and the new inputs: only the index column tells them apart.
        const name = (doc: number) => `d${doc % 7}\t${place(doc).source}`;
        const text =
          "doc\tindex\tordinal\tcluster\trepresentative\tdup_of\tsimilarity\n" +
          rows.map((r) => `${name(r.doc)}\t${place(r.doc).ordinal + 1}\t${r.cluster}\t${rep.get(r.cluster) === r.doc ? 1 : 0}\td${rep.get(r.cluster)! % 7}\t-\n`).join("");
        const clusters = [...written].sort((x, y) => x - y);
        const members = (c: number) => rows.filter((r) => r.cluster === c).map((r) => r.doc);
        const pair = (a: number, b: number, line: number): SampledPair => ({ line, a: `d${a % 7}`, sourceA: place(a).source, b: `d${b % 7}`, sourceB: place(b).source, similarity: 1 });
        const first = clusters.length === 0 ? [] : members(clusters[0]);
        const pairs = first.length === 0 ? [] : [pair(first[0], first[1], 1)];
        const s = await scanClusters(file(text), pairs, top, 2);
        expect(s.sourced).toBe(true);
        expect(s.documents).toBe(rows.length);
        expect([...s.sizes]).toEqual(clusters.map((c) => members(c).length));
        const expected = [...clusters].sort((x, y) => members(y).length - members(x).length || x - y).slice(0, top);
        expect(s.largest.map((l) => l.cluster)).toEqual(expected);
        for (const l of s.largest) {
          expect(l.representative).toEqual(place(rep.get(l.cluster)!));
          expect(l.representativeId).toBe(`d${rep.get(l.cluster)! % 7}`);
          expect(l.members).toEqual(members(l.cluster).slice(1, 3).map((d) => `d${d % 7}`));
        }
        if (pairs.length > 0) {
          // Ids repeat (d0 … d6): a is the first row (the first member of the first cluster), b the first later row of its name in that cluster.
          const b = members(clusters[0]).find((d) => d > first[0] && name(d) === name(first[1]));
          expect(s.pairPlaces[0]).toEqual({ a: place(first[0]), b: place(b!) });
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe("readCalibration", () => {
  const header = "threshold\trecall\trecall_low\trecall_high\tprecision\tprecision_low\tprecision_high\n";

  it("reads the rows by column name, and nothing when there is no file", async () => {
    expect(await readCalibration(join(dir, "none.tsv"))).toBeUndefined();
    const rows = await readCalibration(file(header + "0.9\t0.98\t0.96\t0.99\t1\t0.99\t1\n0.8\t0.995\t0.99\t1\t0.97\t0.95\t0.98\n"));
    // Files written before the trials columns existed read them as unknown.
    const none = { recallTrials: NaN, precisionTrials: NaN };
    expect(rows).toEqual([
      { threshold: 0.9, recall: 0.98, recallLow: 0.96, recallHigh: 0.99, precision: 1, precisionLow: 0.99, precisionHigh: 1, ...none },
      { threshold: 0.8, recall: 0.995, recallLow: 0.99, recallHigh: 1, precision: 0.97, precisionLow: 0.95, precisionHigh: 0.98, ...none },
    ]);
    const withTrials = await readCalibration(file("precision_trials\trecall_trials\t" + header.replace("\n", "\t") + "\n12.5\t\t0.9\t0.98\t0.96\t0.99\t1\t0.99\t1\n"));
    expect(withTrials).toEqual([{ threshold: 0.9, recall: 0.98, recallLow: 0.96, recallHigh: 0.99, precision: 1, precisionLow: 0.99, precisionHigh: 1, recallTrials: NaN, precisionTrials: 12.5 }]);
    await expect(readCalibration(file(header.replace("\n", "\trecall_trials\n") + "0.9\t0.98\t0.96\t0.99\t1\t0.99\t1\tmany\n"))).rejects.toThrow(/:2: recall_trials is not a number/);
  });

  it("reads an empty field (no pair counted at that threshold, as calibrate writes it) as NaN", async () => {
    const rows = await readCalibration(file(header + "1.00\t\t0.0000\t1.0000\t\t0.0000\t1.0000\n"));
    expect(rows).toEqual([{ threshold: 1, recall: NaN, recallLow: 0, recallHigh: 1, precision: NaN, precisionLow: 0, precisionHigh: 1, recallTrials: NaN, precisionTrials: NaN }]);
  });

  it("names the file and line of a missing column or a value that is not a number", async () => {
    await expect(readCalibration(file("threshold\trecall\n"))).rejects.toThrow(VertdupError);
    await expect(readCalibration(file("threshold\trecall\n"))).rejects.toThrow(/:1: no column recall_low/);
    await expect(readCalibration(file(header + "0.9\tx\t0\t0\t0\t0\t0\n"))).rejects.toThrow(/:2: recall is not a number/);
  });
});

describe("the cluster-size plot", () => {
  it("has one point per size up to 1000 and at most 16 bins per doubling beyond", () => {
    const sizes = new Uint32Array([2, 2, 3, 1000, 5000, 5001, 1_000_000]);
    const points = sizePoints(sizes);
    expect(points.slice(0, 3)).toEqual([[2, 2], [3, 1], [1000, 1]]);
    expect(points.length).toBe(5);
    expect(points[3][0]).toBeLessThanOrEqual(5000);
    expect(points[4][0]).toBeLessThanOrEqual(1_000_000);
    expect(points[4][0]).toBeGreaterThan(950_000);
    const many = new Uint32Array(200_000).map((_, k) => 2 + k);
    expect(sizePoints(many).length).toBeLessThanOrEqual(999 + 16 * Math.ceil(Math.log2(200_001 / 1000)));
  });

  it("puts 10 halfway between 1 and 100 on a log axis", () => {
    const svg = scatterSvg({ title: "t", xLabel: "x", yLabel: "y", x: [1, 100], y: [1, 100], logX: true, logY: true, width: 180, height: 182 }, [{ name: "s", color: "red", points: [[10, 10]] }]);
    // Plot area: x from 60 to 160, y from 34 to 134.
    expect(svg).toContain('<circle cx="110.0" cy="84.0"');
  });
});

describe("readDocTexts", () => {
  it("reads the beginnings of the wanted documents only, by corpus ordinal", async () => {
    const docs = Array.from({ length: 30 }, (_, k) => `<doc id="d${k}">\n<p>\n${Array.from({ length: k + 1 }, (_, t) => `w${k}_${t}\tlemma`).join("\n")}\n</p>\n</doc>\n`);
    const path = join(dir, "c.vert");
    writeFileSync(path, docs.join(""));
    const texts = await readDocTexts([path], [20, 3, 3, NaN], { idAttr: "id", tokens: 5 });
    expect([...texts.keys()].sort((x, y) => x - y)).toEqual([3, 20]);
    expect(texts.get(3)).toEqual({ id: "d3", tokens: ["w3_0", "w3_1", "w3_2", "w3_3"], total: 4 });
    expect(texts.get(20)).toEqual({ id: "d20", tokens: ["w20_0", "w20_1", "w20_2", "w20_3", "w20_4"], total: 21 });
  });
});
