import type { Argv } from "yargs";
import { withReferenceOptions } from "../reference-options.js";

const builder = (y: Argv) => withReferenceOptions(y);

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const similarityCommand = {
  command: "similarity",
  describe: "exact all-pairs cosine of the prepared document vectors (the reference)",
  builder: (y: Argv) => builder(y).example("vertdup similarity -w work -o cos.tsv --threshold 0.9", "every pair of a prepared work directory at cosine \u2265 0.9"),
  handler: async (a: Args) => {
    // Loaded here, not at start: the CLI loads only the modules of the command it runs.
    const [{ runReferenceCommand }, { allPairsSimilarity }, { loadWorkdirVectors }] = await Promise.all([
      import("../reference-command.js"),
      import("../../eval/exact/similarity.js"),
      import("../../features/workdir-vectors.js"),
    ]);
    await runReferenceCommand(a, "similarity", "document pairs", async (ctx, pool, reporter) => {
      const rows = loadWorkdirVectors(a.w, ctx.prepared);
      const pairs = await allPairsSimilarity(rows, { threshold: ctx.threshold, sampled: ctx.sampled, steps: ctx.steps }, pool, reporter);
      return { pairs, items: rows.rowPtr.length - 1 };
    });
  },
};
