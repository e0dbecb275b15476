import { join } from "node:path";
import type { Argv } from "yargs";
import { executionOptionsFrom, inputPaths, withOptions } from "../options.js";
import { METHOD_DEFAULTS } from "../../core/method-options.js";
import type { ParagraphShard } from "../../methods/paragraph-sets/paragraph-sets.js";
import { METHODS_WORKERS } from "../../methods/sets/methods-entry.js";

const builder = (y: Argv) =>
  withOptions(
    y.positional("inputs", { type: "string", array: true, demandOption: true, describe: ".vert, .vert.gz, .vert.zst or - (stdin)" }),
    ["outdir", "threshold", "short-tokens", "column", "id-attr", "partition-attr", "normalize", "lowercase", "keep-numbers", "workers", "tmp-dir", "chunk-size", "max-doc-bytes", "oversize", "pairs-limit", "quiet"],
    {
      outdir: { describe: "output directory (short-long.tsv)" },
      threshold: { default: METHOD_DEFAULTS.paragraphs.threshold, describe: "similar: Jaccard of paragraph sets at least this" },
      "short-tokens": { describe: "paragraphs with fewer kept tokens are short" },
      "pairs-limit": { describe: "refuse to compare more document pairs than this (0: no limit)" },
    },
  );

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const SHORT_LONG_HEADER = "doc_a\tdoc_b\tlong_similarity\tshort_similarity\n";

export const shortLongCommand = {
  command: "short-long <inputs..>",
  describe: "pairs similar in long paragraphs (>= threshold) but not in short ones",
  builder: (y: Argv) => builder(y).example("vertdup short-long data-samples/sample.vert.gz -o out-sl", "\u2192 out-sl/short-long.tsv"),
  handler: async (a: Args) => {
    // Loaded here, not at start: the CLI loads only the modules of the command it runs.
    const [{ stderrReporter }, { WorkerPool }, { temporaryDirectory, lockOutdir }, { featuresFrom }, { shortLongPairs }, { extractFeatures }, { DocIds }, { writeLineFile }, { escapeField }, { checkOutputs }, { checkReadable }, { partitionNumbers }] = await Promise.all([
      import("../../executor/progress.js"),
      import("../../executor/pool.js"),
      import("../../workdir/use.js"),
      import("../method-options.js"),
      import("../../methods/paragraph-sets/paragraph-sets.js"),
      import("../../methods/sets/features-step.js"),
      import("../../output/doc-ids.js"),
      import("../../output/line-file.js"),
      import("../../output/tsv-field.js"),
      import("../../util/output-dir.js"),
      import("../../corpus/open-input.js"),
      import("../../clusters/partitions.js"),
    ]);
    const exec = executionOptionsFrom(a);
    // Paragraph fingerprints: no shingles, permutations or seed.
    const features = { ...featuresFrom({ ...a, "shingle-size": 1, "num-perm": 1, seed: 0 }), bands: 1, rows: 1 };
    await checkOutputs([join(a.o, "short-long.tsv")], inputPaths(a.inputs));
    // Before -o is made: a missing input leaves none behind.
    for (const input of inputPaths(a.inputs)) await checkReadable(input);
    // Another short-long into this -o meanwhile is refused: one of the two would replace the other's file.
    const outLock = await lockOutdir(a.o);
    try {
      const reporter = stderrReporter(exec.quiet);
      const scratch = await temporaryDirectory(exec.tmpDir, "vertdup-");
      const workdir = scratch.path;
      const pool = new WorkerPool(METHODS_WORKERS, exec.workers);
      try {
        const { shards } = await extractFeatures<ParagraphShard>(inputPaths(a.inputs), workdir, "paragraphs", features, exec, pool, reporter, false);
        const ids = DocIds.fromLists(shards.map((s) => s.ids));
        const attr = a["partition-attr"];
        const part = attr === undefined ? undefined : partitionNumbers(shards.map((s) => s.parts), attr);
        const rows = shortLongPairs(shards, ids.length, a.threshold, a["pairs-limit"], undefined, part);
        await writeLineFile(join(a.o, "short-long.tsv"), SHORT_LONG_HEADER, rows.length, (k) => {
          const r = rows[k];
          return `${escapeField(ids.get(r.a))}\t${escapeField(ids.get(r.b))}\t${r.long.toFixed(4)}\t${r.short.toFixed(4)}\n`;
        });
        process.stdout.write(`short-long: ${join(a.o, "short-long.tsv")}: ${rows.length} pairs similar in long paragraphs only\n`);
      } finally {
        await pool.close();
        await scratch.remove();
      }
    } finally {
      await outLock?.release();
    }
  },
};
