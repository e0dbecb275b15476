import { join } from "node:path";
import type { Argv } from "yargs";
import { executionOptionsFrom, inputPaths, withExecutionOptions } from "../cli-options.js";
import { stderrReporter } from "../coordinator/progress.js";
import { WorkerPool } from "../coordinator/pool.js";
import { temporaryDirectory } from "../coordinator/workdir-use.js";
import { METHOD_DEFAULTS } from "../methods/method-options.js";
import { methodRunFrom } from "../methods/method-cli.js";
import { shortLongPairs, type ParagraphShard } from "../methods/paragraphs.js";
import { extractFeatures } from "../methods/run-method.js";
import { writeAtomic } from "../util/atomic.js";
import { ensureWritableDir } from "../util/output-dir.js";

const builder = (y: Argv) =>
  withExecutionOptions(y)
    .positional("inputs", { type: "string", array: true, demandOption: true, describe: ".vert, .vert.gz, .vert.zst or - (stdin)" })
    .option("o", { alias: "outdir", type: "string", demandOption: true, describe: "output directory (short-long.tsv)" })
    .option("threshold", { type: "number", default: METHOD_DEFAULTS.paragraphs.threshold, describe: "similar: Jaccard of paragraph sets at least this" })
    .option("short-tokens", { type: "number", default: METHOD_DEFAULTS.paragraphs.shortTokens, describe: "paragraphs with fewer kept tokens are short" })
    .option("keep-numbers", { type: "boolean", default: false, describe: "keep tokens made only of digits" })
    .option("lowercase", { type: "boolean", default: true, describe: "lowercase terms (--no-lowercase keeps case)" })
    .option("column", { type: "number", default: 0, describe: "tab-separated column used as the token" })
    .option("id-attr", { type: "string", default: "id", describe: "attribute of <doc> that names a document" });

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const SHORT_LONG_HEADER = "doc_a\tdoc_b\tlong_similarity\tshort_similarity\n";

export const shortLongCommand = {
  command: "short-long <inputs..>",
  describe: "pairs similar in long paragraphs (>= threshold) but not in short ones (000)",
  builder,
  handler: async (a: Args) => {
    const exec = executionOptionsFrom(a);
    const run = methodRunFrom({ ...a, method: "paragraphs", "shingle-size": 1, "num-perm": 1, "max-distance": 0, memory: "0", keep: "longest" });
    await ensureWritableDir(a.o);
    const reporter = stderrReporter(exec.quiet);
    const scratch = await temporaryDirectory(exec.tmpDir, "vertdup-");
    const workdir = scratch.path;
    const pool = new WorkerPool("methods", exec.workers);
    try {
      const shards = await extractFeatures<ParagraphShard>(inputPaths(a.inputs), workdir, "paragraphs", run.features, exec, pool, reporter);
      const ids = shards.flatMap((s) => s.ids);
      const rows = shortLongPairs(shards, ids.length, run.search.threshold);
      const lines = rows.map((r) => `${ids[r.a]}\t${ids[r.b]}\t${r.long.toFixed(4)}\t${r.short.toFixed(4)}\n`);
      await writeAtomic(join(a.o, "short-long.tsv"), SHORT_LONG_HEADER + lines.join(""));
      process.stdout.write(`short-long: ${join(a.o, "short-long.tsv")}: ${rows.length} pairs similar in long paragraphs only\n`);
    } finally {
      await pool.close();
      await scratch.remove();
    }
  },
};
