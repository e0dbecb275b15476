import type { Argv } from "yargs";
import { withReferenceOptions } from "../reference-options.js";

const builder = (y: Argv) => withReferenceOptions(y);

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const hammingFullCommand = {
  command: "hamming-full",
  describe: "exact all-pairs relative Hamming similarity of the stored signatures",
  builder: (y: Argv) => builder(y).example("vertdup hamming-full -w work -o ham.tsv --threshold 0.9", "every pair of a prepared work directory at Hamming similarity \u2265 0.9"),
  handler: async (a: Args) => {
    // Loaded here, not at start: the CLI loads only the modules of the command it runs.
    const [{ runReferenceCommand }, { documentPairsOf, hammingFullTriples }, { loadSignatureStore }] = await Promise.all([
      import("../reference-command.js"),
      import("../../eval/exact/hamming-full.js"),
      import("../../runs/signature-store.js"),
    ]);
    await runReferenceCommand(a, "hamming-full", "signature pairs", async (ctx, pool, reporter) => {
      const store = loadSignatureStore(a.w, ctx.prepared.options.bits);
      const triples = await hammingFullTriples(store, { threshold: ctx.threshold, sampled: ctx.sampled, steps: ctx.steps }, pool, reporter);
      return { pairs: documentPairsOf(store, triples, ctx.sampled), items: store.count };
    });
  },
};
