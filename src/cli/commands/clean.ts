import type { Argv } from "yargs";
import { inputPaths, maxDocBytesFrom, withOptions } from "../options.js";

const builder = (y: Argv) =>
  withOptions(y.positional("inputs", { type: "string", array: true, demandOption: true, describe: "the corpus given to vertdup run, in the same order" }), ["from", "output", "mark", "workdir", "resume", "max-doc-bytes", "oversize"], {
    output: { describe: "cleaned corpus (.vert, .vert.gz, .vert.zst or - for stdout)" },
    workdir: { demandOption: false, describe: "work directory keeping the cleaned inputs, to continue with --resume (default: none, written straight to -o)" },
    mark: { describe: "keep every document, add dup_of, dup_sim, dup_measure and dup_cluster attributes to <doc>" },
  });

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const cleanCommand = {
  command: "clean <inputs..>",
  describe: "write the corpus without duplicates (or with them marked), byte for byte otherwise",
  builder: (y: Argv) => builder(y).example("vertdup clean data-samples/sample.vert.gz --from out -o cleaned.vert", "the corpus without the duplicates a run in out/ found").example("vertdup clean data-samples/sample.vert.gz --from out --mark -o marked.vert", "keep every document, mark duplicates with dup_of, dup_sim, dup_measure, dup_cluster"),
  handler: async (a: Args) => {
    // Loaded here, not at start: the CLI loads only the modules of the command it runs.
    const { cleanCorpus } = await import("../../clean/clean-corpus.js");
    const s = await cleanCorpus(inputPaths(a.inputs), { from: a.from, output: a.o, mark: a.mark, maxDocBytes: maxDocBytesFrom(a), oversize: a.oversize, workdir: a.w, resume: a.resume });
    if (s.longLines !== undefined) {
      const n = s.longLines.lines === 1 ? "1 line" : `${s.longLines.lines} lines`;
      process.stderr.write(`vertdup: warning: ${n} longer than --max-doc-bytes copied as read, not held (--oversize skip; the first at ${s.longLines.first})\n`);
    }
    const what = a.mark ? `${s.marked} marked` : `${s.removed} removed`;
    process.stderr.write(`vertdup: ${s.documents} documents, ${what} → ${a.o}\n`);
  },
};
