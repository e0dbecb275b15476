import type { MethodRun } from "../../src/methods/sets/set-method.js";
/**
 * Measures the minhash method (not a test):
 *
 *   node dist/scripts/quality/minhash-check.js recall CORPUS [--threshold 0.8] [--workers N]
 *       recall and precision of `run --method minhash` against exact brute-force Jaccard of
 *       the same 5-word shingle sets (all pairs);
 *   node dist/scripts/quality/minhash-check.js speed [--docs 60000] [--tokens 300] [--workers N]
 *       documents/s of the whole method (read, signatures, banding, verification) on a
 *       generated corpus of ~300-token documents: windows of the kjv-3000 token stream with
 *       10% of the tokens replaced, so most pairs are unrelated and some overlap.
 */
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runLocally } from "../../src/executor/pipeline.js";
import { chunkCorpus } from "../../src/corpus/chunker.js";
import { emptyWarnings, parseChunk } from "../../src/corpus/vertical.js";
import { sortedJaccard } from "../../src/methods/sets/jaccard.js";
import { resolveBands } from "../../src/methods/sets/lsh-bands.js";
import { shingleSet } from "../../src/methods/minhash/minhash.js";
import type { MethodManifest } from "../../src/methods/manifest.js";
import { setMethodPipeline } from "../../src/methods/sets/pipeline.js";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    threshold: { type: "string", default: "0.8" },
    workers: { type: "string", default: String(availableParallelism()) },
    docs: { type: "string", default: "60000" },
    tokens: { type: "string", default: "300" },
  },
});
const threshold = Number(values.threshold);
const workers = Number(values.workers);
const NORM = { normalize: "nfc" as const, lowercase: true, keepNumbers: false };

function minhashRun(): MethodRun {
  const { bands, rows } = resolveBands(threshold, 128);
  const features = { column: 0, idAttr: "id", normalize: "nfc" as const, lowercase: true, keepNumbers: false, shingleSize: 5, numPerm: 128, bands, rows, seed: 1, shortTokens: 9 };
  // Every document pair in pairs.tsv, to compare with every exact pair.
  return { method: "minhash", features, search: { threshold, maxDistance: 5, memory: 2 ** 31 }, keep: "longest", pairs: { mode: "all", limit: 0 } };
}

/** The minhash run of `corpus` into `dir`/out; its manifest. */
async function runMinhash(corpus: string, dir: string): Promise<MethodManifest> {
  const outdir = join(dir, "out");
  await runLocally(setMethodPipeline(join(dir, "work"), { method: "minhash", inputs: [corpus], outdir, run: minhashRun(), exec: {}, tasks: 1 }), workers, true);
  return JSON.parse(readFileSync(join(outdir, "manifest.json"), "utf8")) as MethodManifest;
}

async function readDocs(path: string): Promise<{ ids: string[]; tokens: string[][] }> {
  const ids: string[] = [];
  const tokens: string[][] = [];
  for await (const chunk of chunkCorpus([path], 4 << 20)) {
    parseChunk(chunk, { column: 0, idAttr: "id" }, emptyWarnings(), (d) => (ids.push(d.id), tokens.push(d.tokens)));
  }
  return { ids, tokens };
}

async function recall(corpus: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "vertdup-mh-"));
  try {
    const t0 = performance.now();
    await runMinhash(corpus, dir);
    const seconds = (performance.now() - t0) / 1000;
    const found = new Set(readFileSync(join(dir, "out", "pairs.tsv"), "utf8").trim().split("\n").slice(1).map((l) => l.split("\t").slice(0, 2).join("\t")));
    const { ids, tokens } = await readDocs(corpus);
    const sets = tokens.map((t) => shingleSet(t, 5, NORM));
    let truth = 0;
    let hit = 0;
    for (let a = 0; a < sets.length; a++) {
      for (let b = a + 1; b < sets.length; b++) {
        if (sortedJaccard(sets[a], 0, sets[a].length, sets[b], 0, sets[b].length) >= threshold) {
          truth++;
          if (found.has(`${ids[a]}\t${ids[b]}`)) hit++;
        }
      }
    }
    console.log(JSON.stringify({ corpus, threshold, documents: ids.length, exactPairs: truth, reported: found.size, recall: hit / truth, precision: hit / found.size, seconds }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function speed(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "vertdup-mh-"));
  try {
    const stream = (await readDocs("data-samples/kjv-3000.vert.gz")).tokens.flat();
    let s = 12345;
    const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const docs = Number(values.docs);
    const length = Number(values.tokens);
    const parts: string[] = [];
    for (let d = 0; d < docs; d++) {
      const from = Math.floor(rand() * (stream.length - length));
      const words = stream.slice(from, from + length).map((w) => (rand() < 0.1 ? stream[Math.floor(rand() * stream.length)] : w));
      parts.push(`<doc id="g${d}">\n<p>\n${words.join("\n")}\n</p>\n</doc>\n`);
    }
    const corpus = join(dir, "speed.vert");
    writeFileSync(corpus, parts.join(""));
    const t0 = performance.now();
    const m = await runMinhash(corpus, dir);
    const seconds = (performance.now() - t0) / 1000;
    console.log(JSON.stringify({ documents: docs, tokensPerDoc: length, workers, seconds, docsPerSecond: Math.round(docs / seconds), candidates: m.counts.candidates, pairs: m.counts.pairs, phases: m.phases }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (positionals[0] === "recall" && positionals[1] !== undefined) await recall(positionals[1]);
else if (positionals[0] === "speed") await speed();
else {
  console.error("usage: minhash-check.js recall CORPUS [--threshold t] | speed [--docs n] [--tokens n]");
  process.exit(2);
}
