import { emptyDocuments } from "../sets/first-of.js";
import { ALL_PAIRS_BUCKET } from "../sets/bucket-candidates.js";
import { readLimits } from "../../corpus/chunker.js";
import { VertdupError } from "../../core/errors.js";
import { SIMHASH_CALIBRATION_THRESHOLDS } from "../../eval/calibration.js";
import { readRunConfig } from "../../workdir/run-config.js";
import { readerIndexOptions } from "../sets/method-index.js";
import { sampleTermCosinePairs } from "../sets/sample-pairs.js";
import type { FeaturesConfig, SetMethodSpec } from "../sets/set-method.js";
import { simhashGraph, type SimhashShard } from "./simhash384.js";

/**
 * simhash384: 384-bit simhashes of SHA-384 token hashes, pairs within --max-distance bits
 * (pigeonhole candidates); calibrated against the cosine of the token-count vectors it hashes.
 */
export const SIMHASH384: SetMethodSpec<SimhashShard> = {
  similarity: "1 - differing bits / 384 of 384-bit simhashes of SHA-384 token hashes (pairs with at most max-distance differing bits)",
  features: { task: "simhash384", of: "kept token", decidedBy: "--column, --keep-numbers" },
  emptyDocuments,
  indexOptions: readerIndexOptions,
  search: async (shards, documents, run, { part }) => simhashGraph(shards, documents, run.search.maxDistance, ALL_PAIRS_BUCKET, part),
  calibration: {
    measure: "cosine of the token-count vectors",
    name: "cosine",
    thresholds: SIMHASH_CALIBRATION_THRESHOLDS,
    // The method keeps only the hashes: the reference reads the corpus again, which must hold
    // every document (not standard input, not an --against index's documents).
    reference: async (_shards, run, workdir, pool) => {
      if ((run.against ?? []).length > 0) throw new VertdupError("--method simhash384 --estimate-recall cannot calibrate against an index (--against): its documents' tokens are not stored");
      const config = (await readRunConfig(workdir)) as unknown as FeaturesConfig;
      const inputs = config.inputs.map((i) => i.path);
      if (inputs.includes("-")) throw new VertdupError("--method simhash384 --estimate-recall reads the corpus again: give it as files, not standard input");
      const limits = readLimits(config.maxDocBytes, config.oversize);
      return (sampled) => sampleTermCosinePairs(inputs, config.chunkBytes, limits, run.features, sampled, SIMHASH_CALIBRATION_THRESHOLDS[0], pool);
    },
    // A pair within --max-distance k of 384 bits has Hamming similarity ≥ 1 − k/384 ≈ 1 − θ/π: cosine ≥ cos(πk/384).
    advice: (run) => {
      const k = run.search.maxDistance;
      return `; --max-distance ${k} aims at pairs of cosine ≥ cos(π·${k}/384) = ${Math.cos((Math.PI * k) / 384).toFixed(4)}`;
    },
  },
};
