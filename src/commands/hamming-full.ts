import type { Argv } from "yargs";
import { withExactOptions } from "../exact/exact-options.js";

const builder = (y: Argv) => withExactOptions(y);

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const hammingFullCommand = {
  command: "hamming-full",
  describe: "exact all-pairs relative Hamming similarity of the stored signatures",
  builder,
  handler: async (a: Args) => {
    // Loaded here, not at start: the CLI loads only the modules of the command it runs.
    const [{ runExactCommand }, { documentPairsOf, hammingFullTriples }, { loadSignatureStore }] = await Promise.all([
      import("../exact/exact-command.js"),
      import("../exact/hamming-full.js"),
      import("../runs/signature-store.js"),
    ]);
    await runExactCommand(a, "signature pairs", async (ctx, pool, reporter) => {
      const store = loadSignatureStore(a.w, ctx.prepared.options.bits);
      const triples = await hammingFullTriples(store, { threshold: ctx.threshold, sampled: ctx.sampled }, pool, reporter);
      return { pairs: documentPairsOf(store, triples, ctx.sampled), items: store.count };
    });
  },
};
