import type { Argv } from "yargs";
import { executionOptionsFrom, withReadingOptions, inputPaths, withExecutionOptions } from "../cli-options.js";
import { stderrReporter } from "../coordinator/progress.js";
import { DEFAULT_PARAGRAPH, DEFAULT_MEMORY } from "../paragraph-dedup/options.js";
import { parseSize } from "../util/size.js";
import { paragraphs } from "../paragraph-dedup/run-paragraphs.js";
import { paragraphSummary } from "../paragraph-dedup/summary.js";

const builder = (y: Argv) =>
  withReadingOptions(withExecutionOptions(y))
    .positional("inputs", { type: "string", array: true, demandOption: true, describe: ".vert, .vert.gz, .vert.zst or - (stdin)" })
    .option("o", { alias: "output", type: "string", demandOption: true, describe: "output corpus (.vert, .gz, .zst; - for stdout)" })
    .option("ngram", { type: "number", default: DEFAULT_PARAGRAPH.ngram, describe: "tokens per n-gram" })
    .option("threshold", { type: "number", default: DEFAULT_PARAGRAPH.threshold, describe: "duplicate when repeated n-grams / tokens of the unit exceed this" })
    .option("structure", { type: "string", default: DEFAULT_PARAGRAPH.structure, describe: "tag that delimits units (doc: whole documents)" })
    .option("doc-tag", { type: "string", default: DEFAULT_PARAGRAPH.docTag, describe: "document tag" })
    .option("max-stub", { type: "number", default: DEFAULT_PARAGRAPH.maxStub, describe: "smoothing: kept runs of at most this many tokens between duplicates go too (-1: off)" })
    .option("mark", { type: "boolean", default: DEFAULT_PARAGRAPH.mark, describe: "prefix lines with 1<TAB> (duplicate) / 0<TAB> instead of removing" })
    .option("memory", { type: "string", default: `${DEFAULT_MEMORY / 1024 ** 2}M`, describe: "memory for n-grams (and chunks of compressed input) before they go to disk; in external mode, what the bucket tables share" })
    .option("report", { type: "string", describe: "JSON report [<output>.report.json; none for stdout]" });

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const paragraphsCommand = {
  command: "paragraphs <inputs..>",
  describe: "onion-style removal of near-duplicate paragraphs (n-grams seen earlier in the corpus)",
  builder,
  handler: async (a: Args) => {
    const exec = executionOptionsFrom(a);
    const options = {
      ngram: a.ngram,
      threshold: a.threshold,
      structure: a.structure,
      docTag: a["doc-tag"],
      maxStub: a["max-stub"],
      mark: a.mark,
    };
    // `-o -` reaches here protected like an input `-` (cli-options.ts).
    const [output] = inputPaths([a.o]);
    const reportPath = a.report ?? (output === "-" ? undefined : `${output}.report.json`);
    const report = await paragraphs(inputPaths(a.inputs), output, options, exec, stderrReporter(exec.quiet), { memory: parseSize(a.memory, "memory"), reportPath });
    process.stderr.write(`${paragraphSummary(report, reportPath)}\n`);
  },
};
