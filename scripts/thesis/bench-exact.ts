/**
 * Throughput of the exact references (a benchmark, not a test):
 *
 *   node dist/scripts/thesis/bench-exact.js [--n 100000] [--workers N] [--corpus data-samples/kjv-3000.vert.gz]
 *
 * - hamming-full: n random 1024-bit signatures (10% planted near-copies), threshold 0.9, on
 *   the pool with the WebAssembly kernel and with the TypeScript kernel (on n/4 signatures);
 *   signature pair comparisons per second.
 * - similarity: the corpus prepared with tf and with tfidf (1024 bits), all pairs ≥ 0.9;
 *   document pairs per second (n(n−1)/2 over the wall time of the block computation).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { WorkerPool } from "../../src/executor/pool.js";
import { REFERENCE_WORKERS } from "../../src/eval/exact/reference-entry.js";
import { silentReporter } from "../../src/executor/progress.js";
import { hammingFullTriples } from "../../src/eval/exact/hamming-full.js";
import { allPairsSimilarity } from "../../src/eval/exact/similarity.js";
import { loadWorkdirVectors } from "../../src/features/workdir-vectors.js";
import type { SignatureStore } from "../../src/runs/signature-store.js";
import { prepareCorpus } from "./experiments.js";

function randomStore(n: number, W: number): SignatureStore {
  const s = new Uint32Array(new SharedArrayBuffer(4 * n * W));
  let x = 1;
  const next = () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0);
  for (let i = 0; i < n; i++) {
    const src = i > 0 && next() % 10 === 0 ? next() % i : -1;
    for (let w = 0; w < W; w++) s[i * W + w] = src < 0 ? next() : s[src * W + w] ^ (next() % 16 === 0 ? 1 << next() % 32 : 0);
  }
  return { words: W, count: n, signatures: s, offsets: Uint32Array.from({ length: n + 1 }, (_, i) => i), docs: Uint32Array.from({ length: n }, (_, i) => i) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      n: { type: "string", default: "100000" },
      workers: { type: "string", default: String(availableParallelism()) },
      corpus: { type: "string", default: "data-samples/kjv-3000.vert.gz" },
    },
  });
  const n = Number(values.n);
  const workers = Number(values.workers);
  const pool = new WorkerPool(REFERENCE_WORKERS, workers);
  const line = (s: string) => process.stdout.write(s + "\n");
  try {
    for (const [label, count, portable] of [["wasm", n, false], ["ts", Math.floor(n / 4), true]] as const) {
      const store = randomStore(count, 32);
      await hammingFullTriples(randomStore(2000, 32), { threshold: 0.9, sampled: null, portable }, pool, silentReporter); // warm-up
      const t0 = performance.now();
      const triples = await hammingFullTriples(store, { threshold: 0.9, sampled: null, portable }, pool, silentReporter);
      const s = (performance.now() - t0) / 1000;
      const pairs = (count * (count - 1)) / 2;
      line(`hamming-full ${label}: ${count} × 1024-bit signatures, ${pairs.toExponential(3)} pairs in ${s.toFixed(2)} s = ${(pairs / s).toExponential(3)} pairs/s (${triples.length / 3} found, ${workers} workers)`);
    }
    const scratch = mkdtempSync(join(tmpdir(), "vertdup-bench-"));
    try {
      for (const weighting of ["tf", "tfidf"] as const) {
        const p = await prepareCorpus(values.corpus, join(scratch, weighting), 1024, workers, weighting);
        const rows = loadWorkdirVectors(p.workdir, p.manifest);
        const m = rows.rowPtr.length - 1;
        await allPairsSimilarity(rows, { threshold: 0.9, sampled: null }, pool, silentReporter); // warm-up
        const t0 = performance.now();
        const found = await allPairsSimilarity(rows, { threshold: 0.9, sampled: null }, pool, silentReporter);
        const s = (performance.now() - t0) / 1000;
        const pairs = (m * (m - 1)) / 2;
        line(
          `similarity ${weighting}: ${m} vectors (${rows.cols.length} nonzeros) of ${values.corpus}, ${pairs.toExponential(3)} pairs in ${s.toFixed(3)} s = ` +
            `${(pairs / s).toExponential(3)} pairs/s (${found.a.length} ≥ 0.9)`,
        );
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  } finally {
    await pool.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
