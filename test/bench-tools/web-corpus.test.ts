import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { docId } from "../../scripts/generate-corpus.js";
import { BOILERPLATE_PRESET, DEFAULT_WEB, checkWebShape, SHORT_TOKENS, WEB_TRUTH_HEADER, generateWebCorpus, type WebShapeOptions } from "../../scripts/bench/web-corpus.js";
import { Random } from "../../scripts/bench/random.js";
import { ZipfSampler } from "../../scripts/bench/zipf.js";
import { emptyWarnings } from "../../src/corpus/vertical.js";
import { readCorpus } from "../helpers/vert.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-web-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface TruthRow {
  id: string;
  ordinal: number;
  cluster: number;
  kind: string;
}

function readTruth(path: string): TruthRow[] {
  const lines = readFileSync(path, "utf8").split("\n");
  expect(lines[0] + "\n").toBe(WEB_TRUTH_HEADER);
  return lines.slice(1, -1).map((l) => {
    const [id, ordinal, cluster, kind] = l.split("\t");
    return { id, ordinal: Number(ordinal), cluster: Number(cluster), kind };
  });
}

function clusterSizes(truth: TruthRow[]): number[] {
  const size: number[] = [];
  for (const r of truth) size[r.cluster] = (size[r.cluster] ?? 0) + 1;
  return size.slice(1);
}

async function generate(name: string, o: WebShapeOptions) {
  const stats = await generateWebCorpus(join(dir, `${name}.vert`), join(dir, `${name}.truth.tsv`), o, docId);
  const { docs, warnings } = await readCorpus([join(dir, `${name}.vert`)], 1 << 16);
  return { stats, docs, warnings, truth: readTruth(join(dir, `${name}.truth.tsv`)) };
}

describe("generate-corpus --shape web", () => {
  const small: WebShapeOptions = { ...DEFAULT_WEB, docs: 1500, vocab: 5000 };
  let smallRun: ReturnType<typeof generate> | undefined;
  const generateSmall = () => (smallRun ??= generate("a", small));

  it("writes well-formed vertical text; the truth names each clustered document by id and ordinal, clusters numbered by first member", async () => {
    const { stats, docs, warnings, truth } = await generateSmall();
    expect(docs).toHaveLength(1500);
    expect(warnings).toEqual(emptyWarnings());
    expect(docs.reduce((n, d) => n + d.tokens.length, 0)).toBe(stats.tokens);
    let next = 1;
    for (const r of truth) {
      expect(docs[r.ordinal - 1].id).toBe(r.id);
      if (r.cluster === next) next++;
      else expect(r.cluster).toBeLessThan(next);
    }
    expect(truth.map((r) => r.ordinal)).toEqual([...truth.map((r) => r.ordinal)].sort((x, y) => x - y));
  });

  it("plants exact copies, copies that differ only by a header and a footer paragraph, and boilerplate pages", async () => {
    const { docs, truth } = await generateSmall();
    const text = (r: TruthRow) => docs[r.ordinal - 1].tokens.join(" ").toLowerCase();
    const first = new Map<number, TruthRow>();
    const kinds = new Set<string>();
    for (const r of truth) {
      kinds.add(r.kind);
      const source = first.get(r.cluster);
      if (source === undefined) {
        expect(["source", "page"]).toContain(r.kind);
        first.set(r.cluster, r);
      } else if (r.kind === "framed") {
        // Header and footer: 2–3 words and a full stop each.
        const body = text(source);
        const framed = text(r);
        const at = framed.indexOf(body);
        expect(at).toBeGreaterThan(0);
        const header = framed.slice(0, at).trim().split(" ");
        const footer = framed.slice(at + body.length).trim().split(" ");
        for (const part of [header, footer]) {
          expect(part.length).toBeGreaterThanOrEqual(3);
          expect(part.length).toBeLessThanOrEqual(4);
          expect(part.at(-1)).toBe(".");
        }
      } else {
        expect(r.kind).toBe(source.kind === "page" ? "page" : "exact");
        expect(text(r)).toBe(text(source));
        expect(r.id).not.toBe(source.id);
      }
    }
    expect([...kinds].sort()).toEqual(["exact", "framed", "page", "source"]);
  });

  it("has the shape's statistics: the share in clusters, the short documents, the largest cluster, mostly clusters of 2–5", async () => {
    const o: WebShapeOptions = { ...DEFAULT_WEB, docs: 6000, vocab: 5000, medianTokens: 150, largest: 400 };
    const { stats, docs, truth } = await generate("stats", o);
    expect(truth).toHaveLength(0.2 * 6000);
    expect(stats.clustered).toBe(0.2 * 6000);
    expect(docs.filter((d) => d.tokens.length <= SHORT_TOKENS)).toHaveLength(0.1 * 6000);
    expect(stats.shortDocs).toBe(0.1 * 6000);
    const sizes = clusterSizes(truth);
    expect(Math.max(...sizes)).toBe(400);
    expect(stats.largestCluster).toBe(400);
    expect(sizes.filter((s) => s >= 2 && s <= 5).length / sizes.length).toBeGreaterThan(0.6);
    // The largest is capped at half of the clustered documents.
    const capped = await generate("capped", { ...o, docs: 2000, largest: 100_000 });
    expect(capped.stats.largestCluster).toBe(200);
  });

  it("refuses options that would plan nonsense", () => {
    expect(() => checkWebShape({ ...DEFAULT_WEB, docs: Number("1e") })).toThrow(/--docs/);
    expect(() => checkWebShape({ ...DEFAULT_WEB, docs: 10, clusterShare: 1.5 })).toThrow(/--cluster-share/);
    expect(() => checkWebShape({ ...DEFAULT_WEB, docs: 10, pageShare: [0.1, 0.01] })).toThrow(/--page-share/);
    expect(() => checkWebShape({ ...BOILERPLATE_PRESET })).not.toThrow();
  });

  it("draws power-law sizes: P(size) ∝ size^−α from 2 on", () => {
    const law = new ZipfSampler(99, 2, 2);
    const random = new Random(7, 1);
    const count = new Float64Array(101);
    const draws = 200_000;
    for (let i = 0; i < draws; i++) count[law.sample(random) + 2]++;
    let norm = 0;
    for (let s = 2; s <= 100; s++) norm += s ** -2;
    for (const s of [2, 3, 5, 10]) expect(count[s] / draws).toBeCloseTo(s ** -2 / norm, 2);
    expect(count[0] + count[1]).toBe(0);
  });

  it("samples by the guide table exactly as the plain binary search over the cumulative distribution", () => {
    const plain = (cdf: Float64Array, u: number) => {
      let lo = 0;
      let hi = cdf.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (cdf[mid] > u) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    };
    const edges = fc.constantFrom(0, 0xffff, 0x10000, 0xffff_ffff, 0xffff_0000, 0x8000_0000);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 70_000 }), fc.double({ min: 0.3, max: 3, noNaN: true }), fc.constantFrom(1, 2), fc.array(fc.oneof(edges, fc.nat(0xffff_ffff)), { minLength: 1, maxLength: 200 }), (size, exponent, offset, draws) => {
        const law = new ZipfSampler(size, exponent, offset);
        const cdf = new Float64Array(size);
        let sum = 0;
        for (let r = 0; r < size; r++) cdf[r] = sum += 1 / Math.pow(r + offset, exponent);
        for (let r = 0; r < size; r++) cdf[r] /= sum;
        for (const bits of draws) expect(law.sample({ uint32: () => bits })).toBe(plain(cdf, bits / 0x1_0000_0000));
      }),
      { numRuns: 60, seed: 33 },
    );
  });

  it("is seeded: the same options give the same bytes, another seed others", async () => {
    const same = (x: string, y: string) => readFileSync(join(dir, x)).equals(readFileSync(join(dir, y)));
    await generateSmall();
    await generate("b", small);
    expect(same("b.vert", "a.vert")).toBe(true);
    expect(same("b.truth.tsv", "a.truth.tsv")).toBe(true);
    await generate("c", { ...small, seed: 2 });
    expect(same("c.vert", "a.vert")).toBe(false);
    expect(same("c.truth.tsv", "a.truth.tsv")).toBe(false);
  });

  it("boilerplate preset: half the documents one 13-token page, the rest unique short documents", async () => {
    const { docs, truth } = await generate("bp", { ...BOILERPLATE_PRESET, docs: 600 });
    expect(truth).toHaveLength(300);
    expect(new Set(truth.map((r) => r.kind))).toEqual(new Set(["page"]));
    const page = docs[truth[0].ordinal - 1].tokens;
    expect(page).toHaveLength(13);
    for (const r of truth) expect(docs[r.ordinal - 1].tokens).toEqual(page);
    expect(docs.every((d) => d.tokens.length <= SHORT_TOKENS)).toBe(true);
    const inTruth = new Set(truth.map((r) => r.ordinal - 1));
    const others = docs.filter((d) => !inTruth.has(d.ordinal)).map((d) => d.tokens.join(" ").toLowerCase());
    expect(new Set(others).size).toBe(300);
  });
});
