import type { Argv } from "yargs";
import { executionOptionsFrom, inputPaths, prepareOptionsFrom, withOptions } from "../options.js";

const builder = (y: Argv) =>
  withOptions(
    y.positional("inputs", { type: "string", array: true, demandOption: true, describe: ".vert, .vert.gz, .vert.zst or - (stdin)" }),
    ["workdir", "resume", "column", "id-attr", "partition-attr", "normalize", "lowercase", "keep-numbers", "shingle-size", "bits", "weighting", "min-df", "max-df", "seed", "projection", "workers", "chunk-size", "max-doc-bytes", "oversize", "memory", "quiet"],
  );

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const prepareCommand = {
  command: "prepare <inputs..>",
  describe: "preparatory half: corpus → signature store in the work directory",
  builder: (y: Argv) => builder(y).example("vertdup prepare data-samples/sample.vert.gz -w work", "signatures only, kept in work/ for pleb, similarity, hamming-full"),
  handler: async (a: Args) => {
    // Loaded here, not at start: the CLI loads only the modules of the command it runs.
    const [{ prepareSignatures }, { useWorkdir }, { checkReadable }] = await Promise.all([import("../../methods/lsh-cosine/pipeline.js"), import("../../workdir/use.js"), import("../../corpus/open-input.js")]);
    // Before -w is made: a missing input leaves no work directory behind.
    for (const input of inputPaths(a.inputs)) await checkReadable(input);
    const m = await useWorkdir(a.w, undefined, (w) => prepareSignatures(inputPaths(a.inputs), w, prepareOptionsFrom(a), executionOptionsFrom(a), a.resume));
    process.stdout.write(`prepared ${m.counts.documents} documents, ${m.counts.distinctSignatures} distinct signatures in ${a.w}\n`);
  },
};
