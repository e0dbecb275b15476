import type { Argv } from "yargs";
import { stderrReporter } from "../coordinator/progress.js";
import { WorkerPool } from "../coordinator/pool.js";
import { exactContext, exactSummary, withExactOptions } from "../exact/exact-command.js";
import { documentPairsOf, hammingFullTriples } from "../exact/hamming-full.js";
import { writePairsFile } from "../eval/pairs-file.js";
import { loadSignatureStore } from "../runs/signature-store.js";

const builder = (y: Argv) => withExactOptions(y);

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const hammingFullCommand = {
  command: "hamming-full",
  describe: "exact all-pairs relative Hamming similarity of the stored signatures",
  builder,
  handler: async (a: Args) => {
    const ctx = await exactContext(a);
    const t0 = performance.now();
    const store = loadSignatureStore(a.w, ctx.prepared.options.bits);
    const pool = new WorkerPool("exact", ctx.workers);
    let triples;
    try {
      triples = await hammingFullTriples(store, { threshold: ctx.threshold, sampled: ctx.sampled }, pool, stderrReporter(a.quiet));
    } finally {
      await pool.close();
    }
    const pairs = documentPairsOf(store, triples, ctx.sampled);
    await writePairsFile(a.o, pairs, ctx.ids);
    const n = store.count;
    const seconds = (performance.now() - t0) / 1000;
    process.stdout.write(exactSummary(pairs.a.length, ctx.threshold, a.o, seconds, (n * (n - 1)) / 2, "signature pairs") + "\n");
  },
};
