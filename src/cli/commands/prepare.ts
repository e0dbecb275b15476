import type { Argv } from "yargs";
import { executionOptionsFrom, inputPaths, prepareOptionsFrom, withOptions } from "../options.js";

const builder = (y: Argv) =>
  withOptions(
    y.positional("inputs", { type: "string", array: true, demandOption: true, describe: ".vert, .vert.gz, .vert.zst or - (stdin)" }),
    ["workdir", "resume", "column", "id-attr", "lowercase", "keep-numbers", "shingle-size", "bits", "weighting", "min-df", "max-df", "seed", "projection", "workers", "chunk-size", "max-doc-bytes", "oversize", "memory", "quiet"],
  );

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const prepareCommand = {
  command: "prepare <inputs..>",
  describe: "preparatory half: corpus → signature store in the work directory",
  builder,
  handler: async (a: Args) => {
    // Loaded here, not at start: the CLI loads only the modules of the command it runs.
    const [{ prepare }, { useWorkdir }, { stderrReporter }] = await Promise.all([
      import("../../methods/lsh-cosine/prepare.js"),
      import("../../workdir/use.js"),
      import("../../executor/progress.js"),
    ]);
    const exec = executionOptionsFrom(a);
    const m = await useWorkdir(a.w, undefined, (w) => prepare(inputPaths(a.inputs), w, prepareOptionsFrom(a), exec, stderrReporter(exec.quiet), a.resume));
    process.stdout.write(`prepared ${m.counts.documents} documents, ${m.counts.distinctSignatures} distinct signatures in ${a.w}\n`);
  },
};
