import type { Argv } from "yargs";
import { executionOptionsFrom, fraction, inputPaths, withOptions } from "../options.js";
import { DEFAULT_PARAGRAPH, DEFAULT_MEMORY, type Boundary, type CountRule, type ParagraphOptions } from "../../core/paragraph-options.js";
import { parseSize } from "../../util/size.js";
import type { Normalization } from "../../core/options.js";
import { VertdupError } from "../../core/errors.js";

/** The options that decide what the paragraph job writes, shared with `slurm paragraphs`. */
export const PARAGRAPH_OPTIONS = ["output", "ngram", "threshold", "count", "boundary", "structure", "doc-tag", "max-stub", "mark", "normalize", "partition-attr", "memory", "report", "against", "update", "chunk-size", "max-doc-bytes", "oversize"] as const;

export const PARAGRAPH_OPTION_VARIANTS = {
  output: { describe: "output corpus (.vert, .gz, .zst; - for stdout)" },
  threshold: { default: DEFAULT_PARAGRAPH.threshold, describe: "duplicate when the repeated share (--count) of the unit's tokens exceeds this", check: fraction(true) },
  against: { describe: "saved index (a completed run's -w; repeatable): its n-grams count as seen before the inputs', whose output is then what one run over the indices' corpora and the inputs would write for them" },
  update: { describe: "append the inputs' n-grams to the --against index (only one) atomically once the output is written" },
  normalize: {
    default: undefined,
    describe: "Unicode form of the tokens: nfc, nfkc or none (as for run; docs/methods.md) [default: nfc; none with --count tokens, which takes no other: onion hashes its tokens as they are]",
    check: (_name: string, value: Normalization, argv: Readonly<Record<string, unknown>>) => {
      if (argv.count === "tokens" && value !== "none") throw new VertdupError(`--normalize ${value} does not apply to --count tokens (onion 1.2 line for line: onion hashes its tokens as they are): use --count tokens-any or ngrams`);
    },
  },
  memory: { default: `${DEFAULT_MEMORY / 1024 ** 2}M`, describe: "memory for n-grams (and chunks of compressed input) before they go to disk; in external mode, what the bucket tables share (16M to 1T)" },
};

/** The paragraph options given on a command line. */
export function paragraphOptionsFrom(a: { ngram: number; threshold: number; count: CountRule; boundary: Boundary; structure: string; "doc-tag": string; "max-stub": number; mark: boolean; normalize?: Normalization; "partition-attr"?: string }): ParagraphOptions {
  const normalize = a.normalize ?? (a.count === "tokens" ? "none" : DEFAULT_PARAGRAPH.normalize);
  return { ngram: a.ngram, threshold: a.threshold, count: a.count, boundary: a.boundary, structure: a.structure, docTag: a["doc-tag"], maxStub: a["max-stub"], mark: a.mark, normalize, ...(a["partition-attr"] === undefined ? {} : { partitionAttr: a["partition-attr"] }) };
}

/** The report's default place: beside the output (none for standard output). */
export const defaultReportPath = (output: string) => (output === "-" ? undefined : `${output}.report.json`);

const builder = (y: Argv) =>
  withOptions(
    y.positional("inputs", { type: "string", array: true, demandOption: true, describe: ".vert, .vert.gz, .vert.zst or - (stdin)" }),
    [...PARAGRAPH_OPTIONS, "workdir", "resume", "workers", "tmp-dir", "quiet"],
    {
      ...PARAGRAPH_OPTION_VARIANTS,
      workdir: { demandOption: false, describe: "work directory, kept: when the run completes, an index of the inputs' n-grams (for --against)" },
    },
  );

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const paragraphsCommand = {
  command: "paragraphs <inputs..>",
  describe: "onion-style removal of near-duplicate paragraphs (n-grams seen earlier in the corpus)",
  builder: (y: Argv) => builder(y).example("vertdup paragraphs data-samples/sample.vert.gz -o sample.para.vert", "remove near-duplicate paragraphs").example("vertdup paragraphs batch.vert.gz -o batch.clean.vert --against base.idx --update", "a new batch against a saved index (made with -w base.idx), appended to it"),
  handler: async (a: Args) => {
    // Loaded here, not at start: the CLI loads only the modules of the command it runs.
    const [{ paragraphs }, { paragraphSummary }] = await Promise.all([import("../../paragraph-dedup/pipeline.js"), import("../../paragraph-dedup/summary.js")]);
    const reportPath = a.report ?? defaultReportPath(a.o);
    const run = { memory: parseSize(a.memory, "memory"), reportPath, workdir: a.w, against: a.against, update: a.update, resume: a.resume };
    const report = await paragraphs(inputPaths(a.inputs), a.o, paragraphOptionsFrom(a), executionOptionsFrom(a), run);
    process.stderr.write(`${paragraphSummary(report, reportPath)}\n`);
  },
};
