import type { Argv } from "yargs";
import { stderrReporter } from "../coordinator/progress.js";
import { WorkerPool } from "../coordinator/pool.js";
import { exactContext, exactSummary, withExactOptions } from "../exact/exact-command.js";
import { allPairsSimilarity } from "../exact/similarity.js";
import { loadWorkdirVectors } from "../exact/workdir-vectors.js";
import { writePairsFile } from "../eval/pairs-file.js";

const builder = (y: Argv) => withExactOptions(y);

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const similarityCommand = {
  command: "similarity",
  describe: "exact all-pairs cosine of the prepared document vectors (the reference)",
  builder,
  handler: async (a: Args) => {
    const ctx = await exactContext(a);
    const reporter = stderrReporter(a.quiet);
    const t0 = performance.now();
    const rows = loadWorkdirVectors(a.w, ctx.prepared);
    const pool = new WorkerPool("exact", ctx.workers);
    let pairs;
    try {
      pairs = await allPairsSimilarity(rows, { threshold: ctx.threshold, sampled: ctx.sampled }, pool, reporter);
    } finally {
      await pool.close();
    }
    await writePairsFile(a.o, pairs, ctx.ids);
    const n = rows.rowPtr.length - 1;
    const seconds = (performance.now() - t0) / 1000;
    process.stdout.write(exactSummary(pairs.a.length, ctx.threshold, a.o, seconds, (n * (n - 1)) / 2, "document pairs") + "\n");
  },
};
