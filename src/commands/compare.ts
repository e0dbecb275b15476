import { writeAtomic } from "../util/atomic.js";
import { refuseOverwritingInputs } from "../util/output-dir.js";
import type { Argv } from "yargs";
import { comparePairs, formatReport } from "../eval/compare.js";
import { readPairsFile } from "../eval/pairs-file.js";
import { thresholdRange } from "../eval/sweep.js";
import { WorkdirSimilarities } from "../eval/workdir-similarities.js";
import { VertdupError } from "../util/errors.js";

const builder = (y: Argv) =>
  y
    .option("reference", { type: "string", demandOption: true, describe: "pairs file taken as the truth (e.g. from similarity)" })
    .option("candidate", { type: "string", demandOption: true, describe: "pairs file to judge (e.g. pairs.tsv of pleb)" })
    .option("reference-threshold", { type: "number", default: 0, describe: "count reference pairs with similarity ≥ this" })
    .option("candidate-threshold", { type: "number", default: 0, describe: "count candidate pairs with similarity ≥ this" })
    .option("sweep", { type: "string", default: "0.5:1:0.01", describe: "candidate thresholds of the sweep table, from:to:step" })
    .option("vectors-workdir", { type: "string", describe: "prepared work directory: also L1, L2, S of Hamming vs cosine" })
    .option("json", { type: "string", describe: "write the report as JSON to this file (- for stdout, instead of the table)" });

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

function parseSweep(text: string): number[] {
  const parts = text.split(":").map(Number);
  if (parts.length !== 3 || parts.some((x) => !Number.isFinite(x)) || !(parts[2] > 0) || parts[0] > parts[1]) {
    throw new VertdupError(`--sweep must be from:to:step with from ≤ to and step > 0, got ${JSON.stringify(text)}`);
  }
  return thresholdRange(parts[0], parts[1], parts[2]);
}

export const compareCommand = {
  command: "compare",
  describe: "recall, precision, F (and L1, L2, S) of candidate pairs against reference pairs",
  builder,
  handler: async (a: Args) => {
    const thresholds = parseSweep(a.sweep);
    for (const name of ["reference-threshold", "candidate-threshold"] as const) {
      if (!(a[name] >= 0 && a[name] <= 1)) throw new VertdupError(`--${name} must be in [0, 1], got ${a[name]}`);
    }
    if (a.json !== undefined) await refuseOverwritingInputs([a.json], [a.reference, a.candidate]);
    const [reference, candidate] = await Promise.all([readPairsFile(a.reference), readPairsFile(a.candidate)]);
    const scorer = a["vectors-workdir"] === undefined ? undefined : await WorkdirSimilarities.load(a["vectors-workdir"]);
    const report = comparePairs(
      reference,
      candidate,
      { referenceThreshold: a["reference-threshold"], candidateThreshold: a["candidate-threshold"], sweep: thresholds },
      scorer,
    );
    const json = JSON.stringify(report, null, 2) + "\n";
    if (a.json === "-") process.stdout.write(json);
    else {
      if (a.json !== undefined) await writeAtomic(a.json, json);
      process.stdout.write(formatReport(report));
    }
  },
};
