import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runPipeline, VertdupError, type RunOptions } from "vertdup";
import { removeTempDirs, tempDir, readTsv, vertdup } from "../helpers/cli.js";
import { loadSignatureStore } from "../../src/runs/signature-store.js";
import { loadDocIds } from "../../src/output/doc-ids.js";
import { loadDocParts } from "../../src/clusters/doc-table.js";
import { partitionNumbers } from "../../src/clusters/partitions.js";
import { hammingDistance, maxDistanceFor } from "../../src/pleb/hamming.js";

afterAll(removeTempDirs);

const METHODS = ["lsh-cosine", "minhash", "simhash384", "exact", "paragraphs"] as const;

/** 300 seeded pseudo-random words (a text no other seed's shares). */
function text(seed: number): string[] {
  let s = seed;
  return Array.from({ length: 300 }, () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return `w${s % 2000}`;
  });
}

function doc(id: string, lang: string | undefined, words: string[]): string {
  return `<doc id="${id}"${lang === undefined ? "" : ` lang="${lang}"`}>\n<p>\n${words.join("\n")}\n</p>\n</doc>\n`;
}

/**
 * Ten documents: text A in German and French (the issue's untranslated page), text B twice
 * in German, text C in French and in two documents without `lang`, and four of their own.
 */
const CORPUS: [string, string | undefined, number][] = [
  ["a-de", "de", 1], ["a-fr", "fr", 1], ["b-de", "de", 2], ["b-de-copy", "de", 2], ["c-fr", "fr", 3],
  ["c-none", undefined, 3], ["c-none-copy", undefined, 3], ["d-de", "de", 4], ["e-fr", "fr", 5], ["f-cs", "cs", 6],
];

function write(dir: string, name: string, docs: [string, string | undefined, number][]): string {
  const path = join(dir, name);
  writeFileSync(path, docs.map(([id, lang, seed]) => doc(id, lang, text(seed))).join(""));
  return path;
}

/** clusters.tsv as the sorted lists of each cluster's document ids (its columns found by the header: --against adds `index`). */
function clusters(outdir: string): string[][] {
  const [header] = readFileSync(join(outdir, "clusters.tsv"), "utf8").split("\n");
  const column = header.split("\t").indexOf("cluster");
  const byCluster = new Map<string, string[]>();
  for (const row of readTsv(join(outdir, "clusters.tsv"))) byCluster.set(row[column], [...(byCluster.get(row[column]) ?? []), row[0]].sort());
  return [...byCluster.values()].sort((x, y) => x[0].localeCompare(y[0]));
}

const run = (inputs: string[], options: RunOptions) =>
  runPipeline(inputs, { quiet: true, report: false, "chunk-size": 4096, ...(options.method === "lsh-cosine" ? { iterations: 20 } : {}), ...options });

describe("--partition-attr", () => {
  it("pairs documents of one value only, every method, and calibrates against such pairs; a document without the attribute has the empty value; the same with 1 or 2 workers", async () => {
    const dir = tempDir();
    const corpus = write(dir, "c.vert", CORPUS);
    for (const method of METHODS) {
      await run([corpus], { outdir: join(dir, `${method}-all`), method, workers: 1 });
      expect(clusters(join(dir, `${method}-all`)), method).toEqual([["a-de", "a-fr"], ["b-de", "b-de-copy"], ["c-fr", "c-none", "c-none-copy"]]);
      // The pool's methods (lsh-cosine's calibration, the set methods' through minhash) are calibrated, and run again on two workers.
      const pooled = method === "lsh-cosine" || method === "minhash";
      for (const workers of pooled ? [1, 2] : [1]) {
        // Calibrated (every document sampled): the reference holds the 2 pairs within a value, not the 5 of the corpus.
        const calibrated = workers === 1 && pooled ? { "estimate-recall": true, sample: 10 } : {};
        const result = await run([corpus], { outdir: join(dir, `${method}-${workers}`), method, workers, "partition-attr": "lang", ...calibrated });
        expect(result.manifest.prepare).toMatchObject({ partitionAttr: "lang" });
        if (workers === 1 && pooled) expect(result.manifest.calibration?.referencePairs, method).toBe(2);
        expect(clusters(join(dir, `${method}-${workers}`)), method).toEqual([["b-de", "b-de-copy"], ["c-none", "c-none-copy"]]);
      }
      for (const file of ["groups.tsv", "pairs.tsv", "clusters.tsv"]) {
        if (!pooled) continue;
        expect(readFileSync(join(dir, `${method}-2`, file), "utf8"), `${method} ${file}`).toBe(readFileSync(join(dir, `${method}-1`, file), "utf8"));
      }
    }
  });

  it("supplementing: the index records the attribute, pairs stay within a value, another --partition-attr is refused", async () => {
    const dir = tempDir();
    const base = write(dir, "base.vert", CORPUS.slice(0, 5));
    const batch = write(dir, "batch.vert", [["b-fr-new", "fr", 2], ["b-de-new", "de", 2], ["a-none-new", undefined, 1]]);
    for (const method of ["lsh-cosine", "minhash"]) {
      const index = join(dir, `index-${method}`);
      await run([base], { outdir: join(dir, `base-${method}`), method, workdir: index, "partition-attr": "lang" });
      await run([batch], { outdir: join(dir, `batch-${method}`), method, against: index, "partition-attr": "lang" });
      expect(clusters(join(dir, `batch-${method}`)), method).toEqual([["b-de", "b-de-copy", "b-de-new"]]);
      await expect(run([batch], { outdir: join(dir, `none-${method}`), method, against: index })).rejects.toThrow(VertdupError);
      await expect(run([batch], { outdir: join(dir, `other-${method}`), method, against: index, "partition-attr": "xml:lang" })).rejects.toThrow(
        /--partition-attr: index "lang", this run "xml:lang"/,
      );
    }
  });

  it("short-long: a pair only within a value", () => {
    const dir = tempDir();
    // Two long paragraphs each shared by a German and a French page and by two German pages, with short paragraphs that differ.
    const page = (id: string, lang: string, long: number, short: string) => `<doc id="${id}" lang="${lang}">\n<p>\n${text(long).join("\n")}\n</p>\n<p>\n${short}\n</p>\n</doc>\n`;
    const corpus = join(dir, "c.vert");
    writeFileSync(corpus, page("x-de", "de", 1, "nav") + page("x-fr", "fr", 1, "accueil") + page("y-de", "de", 2, "impressum") + page("y-de-copy", "de", 2, "kontakt"));
    const pairs = (extra: string[]) => {
      const out = join(dir, `sl${extra.length}`);
      expect(vertdup(["short-long", corpus, "-o", out, "--short-tokens", "5", "--quiet", ...extra]).status).toBe(0);
      return readTsv(join(out, "short-long.tsv")).map((row) => `${row[0]} ${row[1]}`);
    };
    expect(pairs([])).toEqual(["x-de x-fr", "y-de y-de-copy"]);
    expect(pairs(["--partition-attr", "lang"])).toEqual(["y-de y-de-copy"]);
  });

  it("lsh-cosine's PLEB search is keyed by partition: where the beam spans a partition's signatures, its pairs are brute force's, however many near copies another partition has", async () => {
    const dir = tempDir();
    // Ten texts, each in 2 German near copies and 60 French ones: in one order of all 620
    // signatures, the French copies of a text lie between its two German ones.
    let s = 99;
    const copy = (seed: number) => text(seed).slice(0, 100).map((w) => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) % 100 === 0 ? `x${s % 100000}` : w));
    const pages: string[] = [];
    for (let t = 1; t <= 10; t++) {
      for (let k = 0; k < 2; k++) pages.push(doc(`de-${t}-${k}`, "de", copy(t)));
      for (let k = 0; k < 60; k++) pages.push(doc(`fr-${t}-${k}`, "fr", copy(t)));
    }
    const corpus = join(dir, "copies.vert");
    writeFileSync(corpus, pages.join(""));
    // One iteration, its beam the German run's length − 1.
    const search = { method: "lsh-cosine", verify: false, threshold: 0.8, pairs: "all", iterations: 1, beam: 19, workers: 2, "chunk-size": 1 << 20 } as const;
    const germanPairs = (outdir: string) => readTsv(join(outdir, "pairs.tsv")).filter(([a, b]) => a.startsWith("de-") && b.startsWith("de-")).map(([a, b]) => `${a} ${b}`).sort();
    const work = join(dir, "w");
    await run([corpus], { ...search, outdir: join(dir, "keyed"), workdir: work, "partition-attr": "lang" });
    // Brute force over the signatures: the German pairs within the Hamming threshold.
    const store = loadSignatureStore(work, 1024);
    const ids = loadDocIds(work, 1);
    const part = partitionNumbers(loadDocParts(work, 1), "lang");
    const max = maxDistanceFor(1024, 0.8);
    const signatureOf = new Uint32Array(ids.length);
    for (let i = 0; i < store.count; i++) for (let k = store.offsets[i]; k < store.offsets[i + 1]; k++) signatureOf[store.docs[k]] = i;
    const exact: string[] = [];
    for (let a = 0; a < ids.length; a++) {
      for (let b = a + 1; b < ids.length; b++) {
        if (part[a] !== part[b] || !ids.get(a).startsWith("de-")) continue;
        if (hammingDistance(store.signatures, signatureOf[a], signatureOf[b], store.words) <= max) exact.push(`${ids.get(a)} ${ids.get(b)}`);
      }
    }
    expect(exact.length).toBeGreaterThanOrEqual(8);
    expect(germanPairs(join(dir, "keyed"))).toEqual(exact.sort());
    // Every pair within one value.
    for (const [a, b] of readTsv(join(dir, "keyed", "pairs.tsv"))) expect(a.slice(0, 3)).toBe(b.slice(0, 3));
    // The search over all signatures (no option) misses German pairs the beam does not reach.
    await run([corpus], { ...search, outdir: join(dir, "all") });
    expect(germanPairs(join(dir, "all")).length).toBeLessThan(exact.length);
  });
});
