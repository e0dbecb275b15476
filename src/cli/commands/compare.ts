import type { Argv } from "yargs";
import { withOptions } from "../options.js";
import { thresholdRange } from "../../eval/sweep.js";
import { VertdupError } from "../../core/errors.js";

const builder = (y: Argv) =>
  withOptions(y, ["reference", "candidate", "reference-threshold", "candidate-threshold", "sweep", "vectors-workdir", "json"], {
    reference: { demandOption: true, describe: "pairs file taken as the truth (e.g. from similarity)" },
  });

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
  builder: (y: Argv) => builder(y).example("vertdup compare --reference cos.tsv --candidate out/pairs.tsv --vectors-workdir work", "recall, precision, F, L1, L2, S of a run's pairs against the exact ones"),
  handler: async (a: Args) => {
    const thresholds = parseSweep(a.sweep);
    // Loaded here, not at start: the CLI loads only the modules of the command it runs.
    const [{ writeAtomic }, { checkOutputs }, { comparePairs, formatReport }, { readPairsFile }, { readRunPairs, VirtualPairs }, { DocIds }, { WorkdirSimilarities }] = await Promise.all([
      import("../../util/atomic.js"),
      import("../../util/output-dir.js"),
      import("../../eval/compare.js"),
      import("../../eval/pairs-file.js"),
      import("../../eval/run-pairs.js"),
      import("../../output/doc-ids.js"),
      import("../../eval/workdir-similarities.js"),
    ]);
    if (a.json !== undefined) await checkOutputs([a.json], [a.reference, a.candidate]);
    // One id table for both files, read one after the other so that ordinals are reproducible.
    const ids = DocIds.empty();
    const run = await readRunPairs(a.candidate, ids);
    const reference = await readPairsFile(a.reference, ids);
    const candidate = new VirtualPairs(run, ids);
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
