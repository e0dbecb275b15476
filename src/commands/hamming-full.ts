import type { Argv } from "yargs";
import { runExactCommand, withExactOptions } from "../exact/exact-command.js";
import { documentPairsOf, hammingFullTriples } from "../exact/hamming-full.js";
import { loadSignatureStore } from "../runs/signature-store.js";

const builder = (y: Argv) => withExactOptions(y);

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const hammingFullCommand = {
  command: "hamming-full",
  describe: "exact all-pairs relative Hamming similarity of the stored signatures",
  builder,
  handler: (a: Args) =>
    runExactCommand(a, "signature pairs", async (ctx, pool, reporter) => {
      const store = loadSignatureStore(a.w, ctx.prepared.options.bits);
      const triples = await hammingFullTriples(store, { threshold: ctx.threshold, sampled: ctx.sampled }, pool, reporter);
      return { pairs: documentPairsOf(store, triples, ctx.sampled), items: store.count };
    }),
};
