import type { Argv } from "yargs";
import { runExactCommand, withExactOptions } from "../exact/exact-command.js";
import { allPairsSimilarity } from "../exact/similarity.js";
import { loadWorkdirVectors } from "../exact/workdir-vectors.js";

const builder = (y: Argv) => withExactOptions(y);

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const similarityCommand = {
  command: "similarity",
  describe: "exact all-pairs cosine of the prepared document vectors (the reference)",
  builder,
  handler: (a: Args) =>
    runExactCommand(a, "document pairs", async (ctx, pool, reporter) => {
      const rows = loadWorkdirVectors(a.w, ctx.prepared);
      const pairs = await allPairsSimilarity(rows, { threshold: ctx.threshold, sampled: ctx.sampled }, pool, reporter);
      return { pairs, items: rows.rowPtr.length - 1 };
    }),
};
