import type { Argv } from "yargs";
import { noStdio, withOptions } from "./options.js";

/** Options shared by `similarity` and `hamming-full` (apart from reference-command.ts, which the CLI loads only to run them). */
export function withReferenceOptions<T>(y: Argv<T>) {
  return withOptions(y, ["workdir", "resume", "output", "threshold", "sample-list", "workers", "quiet"], {
    workdir: { describe: "prepared work directory" },
    output: { describe: "pairs file to write (.tsv, .tsv.gz, .tsv.zst)", check: noStdio },
    threshold: { default: undefined, demandOption: true, describe: "minimum similarity of a reported pair (fraction)" },
  });
}
