import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_GENERATOR, docId, generateCorpus } from "../../scripts/generate-corpus.js";
import { readPrepareManifest, type PrepareManifest } from "../../src/features/prepare-manifest.js";
import { readVocabularyHeader } from "../../src/features/vocabulary.js";
import { countRowWeights } from "../../src/features/count-rows.js";
import { flaggedRowsLoader, loadCountRowParts, loadCountRows } from "../../src/features/count-row-parts.js";
import { rowCosine } from "../../src/features/sparse-rows.js";
import { loadWorkdirVectors, workdirCountsParts } from "../../src/features/workdir-vectors.js";
import { readMarker, shardName } from "../../src/workdir/layout.js";
import type { ShardStats } from "../../src/features/count-shard.js";
import { removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";
import { rng } from "../helpers/vert.js";

afterAll(removeTempDirs);

// PLEB's --verify scores pairs from term counts (CountRows); its cosines must be the bits of
// rowCosine over the float64 unit rows, since pairs.tsv prints them and the threshold cuts on them.
describe("CountRows: the exact cosine from term counts, bit for bit", () => {
  const DOCS = 1000;
  let corpus: string;
  /** Near-copy pairs of the generator's truth, as corpus ordinals (0-based). */
  let planted: [number, number][];

  beforeAll(async () => {
    const dir = tempDir();
    corpus = join(dir, "gen.vert");
    await generateCorpus(corpus, join(dir, "gen.truth.tsv"), { ...DEFAULT_GENERATOR, docs: DOCS, dupShare: 0.2 });
    // One document whose counts need two-byte varints.
    appendFileSync(corpus, `<doc id="long">\n<p>\n<s>\n${"slovo\n".repeat(300)}${"jiné\n".repeat(150)}</s>\n</p>\n</doc>\n`);
    const ordinal = (id: string) => Number(id.slice(1)) - 1; // docId(o) is "g" and o + 1
    expect(ordinal(docId(7))).toBe(7);
    planted = readFileSync(join(dir, "gen.truth.tsv"), "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => line.split("\t"))
      .map(([copy, source]) => [ordinal(source), ordinal(copy)]);
  });

  const prepared = new Map<string, { work: string; prepared: PrepareManifest }>();
  const prepare = async (weighting: string): Promise<{ work: string; prepared: PrepareManifest }> => {
    if (!prepared.has(weighting)) {
      const work = join(tempDir(), "w");
      const r = vertdup(["prepare", corpus, "-w", work, "--weighting", weighting, "--chunk-size", "262144", "--quiet"]);
      expect(r.stderr).not.toMatch(/error/);
      expect(r.status).toBe(0);
      prepared.set(weighting, { work, prepared: await readPrepareManifest(work) });
    }
    return prepared.get(weighting)!;
  };

  for (const weighting of ["tfidf", "tf"]) {
    it(`gives rowCosine's bits for planted, random and identical pairs (${weighting})`, async () => {
      const { work, prepared } = await prepare(weighting);
      expect(prepared.counts.shards).toBeGreaterThan(3);
      const rows = loadWorkdirVectors(work, prepared);
      const counts = await loadCountRows(work, prepared, new Uint8Array(prepared.counts.documents).fill(1));
      expect(Array.from(counts.ordinals)).toEqual(Array.from(rows.ordinals));
      expect(counts.factors.length).toBe(rows.columns);
      // Ranks past two varint bytes (≥ 2^14) occur.
      expect(rows.cols.some((c) => c >= 1 << 14)).toBe(true);

      const rowOf = new Int32Array(prepared.counts.documents).fill(-1);
      rows.ordinals.forEach((o, r) => (rowOf[o] = r));
      const pairs: [number, number][] = planted.map(([a, b]) => [rowOf[a], rowOf[b]]);
      expect(pairs.every(([a, b]) => a >= 0 && b >= 0)).toBe(true);
      const random = rng(7);
      const n = rows.ordinals.length;
      for (let k = 0; k < 20_000; k++) pairs.push([Math.floor(random() * n), Math.floor(random() * n)]);
      for (let r = 0; r < n; r++) pairs.push([r, r]);
      const fast = new Float64Array(rows.columns);
      const slow = new Float64Array(rows.columns);
      let differ = 0;
      let high = 0;
      for (const [a, b] of pairs) {
        const expected = rowCosine(rows, a, b, slow);
        if (!Object.is(counts.cosine(a, b, fast), expected)) differ++;
        if (expected >= 0.9 && expected < 1) high++;
      }
      expect(differ).toBe(0);
      // Not vacuous: near copies below 1, and the scratch is left zero.
      expect(high).toBeGreaterThan(planted.length / 4);
      expect(fast.every((x) => x === 0)).toBe(true);
    });
  }

  for (const weighting of ["tfidf", "tf"]) {
    it(`ranked by the repeated terms alone (PLEB's verification), gives rowCosine's bits for distinct documents (${weighting})`, async () => {
      const { work, prepared } = await prepare(weighting);
      const header = readVocabularyHeader(join(work, "vocab.zst"));
      // Not vacuous: terms of df = 1 are kept, and left out of the table.
      expect(header.once).toBeGreaterThan(1000);
      const rows = loadWorkdirVectors(work, prepared);
      const counts = await loadCountRows(work, prepared, new Uint8Array(prepared.counts.documents).fill(1), undefined, true);
      expect(Array.from(counts.ordinals)).toEqual(Array.from(rows.ordinals));
      expect(counts.factors.length).toBe(header.repeated + header.excess.length);
      const rowOf = new Int32Array(prepared.counts.documents).fill(-1);
      rows.ordinals.forEach((o, r) => (rowOf[o] = r));
      const pairs: [number, number][] = planted.map(([a, b]) => [rowOf[a], rowOf[b]]);
      const random = rng(11);
      const n = rows.ordinals.length;
      for (let k = 0; k < 20_000; k++) pairs.push([Math.floor(random() * n), Math.floor(random() * n)]);
      const fast = new Float64Array(counts.factors.length);
      const slow = new Float64Array(rows.columns);
      let compared = 0;
      for (const [a, b] of pairs) {
        if (a === b) continue;
        expect(Object.is(counts.cosine(a, b, fast), rowCosine(rows, a, b, slow))).toBe(true);
        compared++;
      }
      expect(compared).toBeGreaterThan(19_000);
      expect(fast.every((x) => x === 0)).toBe(true);
    });
  }

  it("loads the flagged documents' rows from the counts files holding one only (flaggedRowsLoader)", async () => {
    const { work, prepared } = await prepare("tfidf");
    const { shards, documents } = prepared.counts;
    const docs = await Promise.all(Array.from({ length: shards }, async (_, i) => (await readMarker<ShardStats>(work, `count-${shardName(i)}`))!.docs));
    expect(docs.reduce((a, b) => a + b, 0)).toBe(documents);
    const load = flaggedRowsLoader(workdirCountsParts(work, 0, shards), docs, countRowWeights(work, prepared, true));
    // Every other document of the second and the last shard.
    const only = new Uint8Array(documents);
    const start = (s: number) => docs.slice(0, s).reduce((a, b) => a + b, 0);
    for (const s of [1, shards - 1]) for (let o = start(s); o < start(s) + docs[s]; o += 2) only[o] = 1;
    const parts = await load(only);
    expect(parts.length).toBe(2);
    const all = await loadCountRowParts(work, prepared, only, undefined, true);
    expect(parts).toEqual(all.parts.filter((p) => p.ordinals.length > 0));
    expect(Array.from(parts.flatMap((p) => Array.from(p.ordinals)))).toEqual(Array.from(only.keys()).filter((o) => only[o] === 1));
    expect(await load(new Uint8Array(documents))).toEqual([]);
  });

  it("keeps only the flagged documents' rows", async () => {
    const { work, prepared } = await prepare("tfidf");
    const only = new Uint8Array(prepared.counts.documents);
    for (let o = 0; o < only.length; o += 3) only[o] = 1;
    const rows = loadWorkdirVectors(work, prepared);
    const counts = await loadCountRows(work, prepared, only);
    expect(Array.from(counts.ordinals)).toEqual(Array.from(rows.ordinals).filter((o) => o % 3 === 0));
    const scratch = new Float64Array(rows.columns);
    const rowOf = new Map(Array.from(rows.ordinals, (o, r) => [o, r]));
    for (let r = 0; r + 1 < counts.ordinals.length; r++) {
      const expected = rowCosine(rows, rowOf.get(counts.ordinals[r])!, rowOf.get(counts.ordinals[r + 1])!, scratch);
      expect(Object.is(counts.cosine(r, r + 1, scratch), expected)).toBe(true);
    }
  });
});
