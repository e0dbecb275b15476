/**
 * Reproduces the thesis's experiments (../shared/SOURCES.md, section 002) on any corpus:
 *
 *   node dist/scripts/thesis/run.js CORPUS.vert[.gz|.zst] [--out out/thesis] [--workers N]
 *       [--weighting tfidf|tf] [--threshold 0.9] [--shift-iterations 500] [--lengths 256,512,1024,2048]
 *
 * (`npm run thesis` runs it on data-samples/kjv-3000.vert.gz.) Writes report.html (self-
 * contained, SVG plots), report.md (the same tables) and results.json to --out.
 *
 * - Tables 2.1–2.4: PLEB's found pairs % (recall against hamming-full on the same 1024-bit
 *   signatures, threshold --threshold) by beam, shift_count (beam 10 and 20) and iter_count
 *   (read off one run's per-iteration recall).
 * - Table 2.17: L1, L2, S of Hamming vs exact cosine by signature length, over the pairs with
 *   cosine ≥ 0.2 plus 5,000 pseudo-random pairs; Figure 2.5: that scatter at 1024 bits.
 * - Table 2.59: time of pleb at 50/100/250 iterations (threshold 0.95, beam 50, shift 70) with
 *   its found pairs %, of hamming-full and of similarity.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { WorkerPool } from "../../src/coordinator/pool.js";
import { deviation, type Deviation } from "../../src/eval/measures.js";
import { asTable, cosineAndHamming, judgedPairs, plebRecall, prepareCorpus, timedHammingFull, timedSimilarity } from "./experiments.js";
import { renderReport, type Results } from "./report.js";

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      out: { type: "string", default: "out/thesis" },
      workers: { type: "string", default: String(availableParallelism()) },
      weighting: { type: "string", default: "tfidf" },
      threshold: { type: "string", default: "0.9" },
      "shift-iterations": { type: "string", default: "500" },
      lengths: { type: "string", default: "256,512,1024,2048" },
    },
  });
  if (positionals.length !== 1) throw new Error("usage: run.js CORPUS.vert[.gz|.zst] [--out DIR] …");
  const corpus = positionals[0];
  const workers = Number(values.workers);
  const threshold = Number(values.threshold);
  const weighting = values.weighting === "tf" ? "tf" : "tfidf";
  const shiftIterations = Number(values["shift-iterations"]);
  const lengths = values.lengths.split(",").map(Number);
  mkdirSync(values.out, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), "vertdup-thesis-"));
  const log = (s: string) => process.stderr.write(`thesis: ${s}\n`);
  const plebPool = new WorkerPool("pleb", workers);
  const exactPool = new WorkerPool("exact", workers);
  try {
    log(`preparing ${corpus} (1024 bits, ${weighting})`);
    const main = await prepareCorpus(corpus, join(scratch, "w1024"), 1024, workers, weighting);
    const ham = await timedHammingFull(main, threshold, exactPool);
    const reference = asTable("hamming-full", ham.pairs, main.ids);
    log(`hamming-full ≥ ${threshold}: ${reference.similarity.size} pairs`);
    const run = (beam: number, shiftCount: number, iterations: number) =>
      plebRecall(main, reference, { threshold, beam, shiftCount, iterations }, plebPool, workers);

    const beam: [number, number][] = [];
    for (const b of [60, 70, 80, 90]) beam.push([b, (await run(b, 50, 100)).recall.at(-1)!]);
    log("beam sweep done");
    const shift10: [number, number][] = [];
    const shift20: [number, number][] = [];
    for (let s = 10; s <= 90; s += 10) {
      shift10.push([s, (await run(10, s, shiftIterations)).recall.at(-1)!]);
      shift20.push([s, (await run(20, s, shiftIterations)).recall.at(-1)!]);
    }
    log("shift_count sweeps done");
    const iterRun = await run(50, 40, 250);
    const iterations: [number, number][] = iterRun.recall.map((r, k) => [k, r]);

    log("signature lengths");
    const sim = await timedSimilarity(main, 0.2, exactPool);
    const judged = judgedPairs(sim.pairs, main.manifest.counts.documents, 5000);
    const byLength: { bits: number; deviation: Deviation; distinct: number }[] = [];
    let scatter: [number, number][] = [];
    for (const bits of lengths) {
      const p = bits === 1024 ? main : await prepareCorpus(corpus, join(scratch, `w${bits}`), bits, workers, weighting);
      const { c, h } = cosineAndHamming(sim.rows, p, judged);
      byLength.push({ bits, deviation: deviation(c, h), distinct: p.manifest.counts.distinctSignatures });
      // Every k-th pair keeps the page light (≤ ~5,000 points); L1, L2, S use all of them.
      const every = Math.max(1, Math.ceil(c.length / 5000));
      if (bits === 1024) scatter = c.flatMap((x, k): [number, number][] => (k % every === 0 ? [[x, h[k]]] : []));
    }

    log("timing (threshold 0.95)");
    const ham95 = await timedHammingFull(main, 0.95, exactPool);
    const ref95 = asTable("hamming-full 0.95", ham95.pairs, main.ids);
    const timing: Results["timing"] = [];
    for (const it of [50, 100, 250]) {
      const r = await plebRecall(main, ref95, { threshold: 0.95, beam: 50, shiftCount: 70, iterations: it }, plebPool, workers);
      timing.push({ run: `pleb, ${it} iterations`, seconds: r.seconds, found: r.recall.at(-1)! });
    }
    timing.push({ run: "hamming-full", seconds: ham95.seconds, found: null });
    const sim95 = await timedSimilarity(main, 0.95, exactPool);
    timing.push({ run: "similarity", seconds: sim95.seconds, found: null });

    const results: Results = {
      corpus,
      documents: main.manifest.counts.documents,
      distinctSignatures: main.manifest.counts.distinctSignatures,
      weighting,
      threshold,
      referencePairs: reference.similarity.size,
      referencePairs95: ref95.similarity.size,
      similarityPairs95: sim95.pairs.a.length,
      shiftIterations,
      prepareSeconds: main.seconds,
      beam,
      shift10,
      shift20,
      iterations,
      byLength,
      judgedPairs: judged.length,
      scatter,
      timing,
    };
    const { html, markdown } = renderReport(results);
    writeFileSync(join(values.out, "report.html"), html);
    writeFileSync(join(values.out, "report.md"), markdown);
    writeFileSync(join(values.out, "results.json"), JSON.stringify({ ...results, scatter: undefined }, null, 2) + "\n");
    log(`wrote ${join(values.out, "report.html")}, report.md, results.json`);
  } finally {
    await plebPool.close();
    await exactPool.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`thesis: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
