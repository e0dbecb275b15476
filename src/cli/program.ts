import type { Argv } from "yargs";
import { commandLine } from "./command-line.js";
import { paragraphsCommand } from "./commands/paragraphs.js";
import { plebCommand } from "./commands/pleb.js";
import { similarityCommand } from "./commands/similarity.js";
import { hammingFullCommand } from "./commands/hamming-full.js";
import { compareCommand } from "./commands/compare.js";
import { prepareCommand } from "./commands/prepare.js";
import { calibrateCommand, runCommand } from "./commands/run.js";
import { cleanCommand } from "./commands/clean.js";
import { shortLongCommand } from "./commands/short-long.js";
import { slurmCommand } from "./commands/slurm.js";
import { taskCommand } from "./commands/task.js";
import { packageVersion } from "../util/package-info.js";

/** vertdup's commands on `args`, before a failure handler: the CLI's, and the fuzz test's in-process parses. */
export function vertdupCommandLine(args: readonly string[]): Argv {
  return commandLine(args)
    .version(packageVersion())
    .command(runCommand)
    .command(calibrateCommand)
    .command(prepareCommand)
    .command(plebCommand)
    .command(cleanCommand)
    .command(shortLongCommand)
    .command(paragraphsCommand)
    .command(similarityCommand)
    .command(hammingFullCommand)
    .command(compareCommand)
    .command(slurmCommand)
    .command(taskCommand)
    .example("vertdup run data-samples/sample.vert.gz -o out", "find near-duplicate documents → out/ (report.html, clusters.tsv)")
    .example("vertdup clean data-samples/sample.vert.gz --from out -o cleaned.vert", "write the corpus without them")
    .demandCommand(1, "name a command (see vertdup --help)");
}
