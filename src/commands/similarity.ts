import type { Argv } from "yargs";
import { withExactOptions } from "../exact/exact-options.js";

const builder = (y: Argv) => withExactOptions(y);

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const similarityCommand = {
  command: "similarity",
  describe: "exact all-pairs cosine of the prepared document vectors (the reference)",
  builder,
  handler: async (a: Args) => {
    // Loaded here, not at start: the CLI loads only the modules of the command it runs.
    const [{ runExactCommand }, { allPairsSimilarity }, { loadWorkdirVectors }] = await Promise.all([
      import("../exact/exact-command.js"),
      import("../exact/similarity.js"),
      import("../exact/workdir-vectors.js"),
    ]);
    await runExactCommand(a, "document pairs", async (ctx, pool, reporter) => {
      const rows = loadWorkdirVectors(a.w, ctx.prepared);
      const pairs = await allPairsSimilarity(rows, { threshold: ctx.threshold, sampled: ctx.sampled }, pool, reporter);
      return { pairs, items: rows.rowPtr.length - 1 };
    });
  },
};
