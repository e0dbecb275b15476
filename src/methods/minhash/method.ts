import { emptyDocuments } from "../sets/first-of.js";
import { CALIBRATION_THRESHOLDS } from "../../eval/calibration.js";
import { readerIndexOptions } from "../sets/method-index.js";
import { bandsForRecall, candidateProbability, resolveBands, type Banding } from "../sets/lsh-bands.js";
import { sampleJaccardPairs } from "../sets/sample-pairs.js";
import type { SetMethodSpec } from "../sets/set-method.js";
import type { MinhashShard } from "./minhash.js";
import { minhashKernelStatus } from "./minhash-wasm.js";
import { minhashGraph } from "./search.js";

/**
 * minhash: word k-shingle sets, candidates from MinHash LSH banding, verified by their exact
 * Jaccard (sets read back from the shards' sets files); calibrated against the exact Jaccard,
 * with the S-curve of its banding.
 */
export const MINHASH: SetMethodSpec<MinhashShard> = {
  banding: resolveBands,
  similarity: "exact Jaccard resemblance of word k-shingle sets (candidates from MinHash LSH banding)",
  features: { task: "minhash", of: "kept token", decidedBy: "--column, --keep-numbers" },
  emptyDocuments,
  kernels: (f, warn) => ({ minhash: minhashKernelStatus(f.numPerm, warn) }),
  indexOptions: (f) => ({ ...readerIndexOptions(f), "--shingle-size": f.shingleSize, "--num-perm": f.numPerm, "--bands": f.bands, "--rows": f.rows, "--seed": f.seed }),
  keepsEdges: true,
  search: (shards, documents, run, { workdir, pool, known, part }) => minhashGraph(shards, { documents, bands: run.features.bands, threshold: run.search.threshold, memory: run.search.memory, workdir, pool, known, part }),
  calibration: {
    measure: "Jaccard of shingles",
    name: "Jaccard",
    thresholds: CALIBRATION_THRESHOLDS,
    reference: async (shards, _run, _workdir, pool) => {
      const sources = shards.map((s) => ({ firstDoc: s.firstDoc, file: s.sets }));
      return (sampled) => sampleJaccardPairs(sources, sampled, CALIBRATION_THRESHOLDS[0], pool);
    },
    advice: (run, request, calibration) => {
      const { threshold } = run.search;
      const { bands, rows, numPerm } = run.features;
      const configured: Banding = { bands, rows, probability: candidateProbability(threshold, bands, rows) };
      const recommended = bandsForRecall(threshold, numPerm, request.targetRecall);
      calibration.banding = { threshold, configured, ...(recommended === undefined ? {} : { recommended }) };
      const split = (b: Banding) => `${b.bands} × ${b.rows} (S-curve ${b.probability.toFixed(4)})`;
      const advice = recommended === undefined ? `no split of --num-perm ${numPerm} reaches it` : `--bands ${recommended.bands} --rows ${recommended.rows} reaches it: ${split(recommended)}`;
      return `; at --threshold ${threshold} the run's bands × rows ${split(configured)}, ${advice}`;
    },
  },
};
