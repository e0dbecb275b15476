import { CALIBRATION_THRESHOLDS } from "../../eval/calibration.js";
import { ALL_PAIRS_BUCKET } from "../sets/bucket-candidates.js";
import { readerIndexOptions } from "../sets/method-index.js";
import { sampleJaccardPairs } from "../sets/sample-pairs.js";
import type { SetMethodSpec } from "../sets/set-method.js";
import { paragraphGraph, type ParagraphShard } from "./paragraph-sets.js";

/** paragraphs as a set method: Jaccard of the sets of long-paragraph fingerprints, calibrated against it exactly. */
export const PARAGRAPH_SETS: SetMethodSpec<ParagraphShard> = {
  similarity: "Jaccard resemblance of the sets of long-paragraph fingerprints",
  features: { task: "paragraphs", of: "long paragraph", decidedBy: "--short-tokens, --column, --keep-numbers" },
  emptyDocuments: (shards) => shards.reduce((n, x) => n + x.long.lengths.reduce((m, len) => m + (len === 0 ? 1 : 0), 0), 0),
  indexOptions: (f) => ({ ...readerIndexOptions(f), "--short-tokens": f.shortTokens }),
  search: async (shards, documents, run, { part }) => paragraphGraph(shards, documents, run.search.threshold, ALL_PAIRS_BUCKET, part),
  calibration: {
    measure: "Jaccard of long paragraphs",
    name: "Jaccard",
    thresholds: CALIBRATION_THRESHOLDS,
    reference: async (shards, _run, _workdir, pool) => {
      const sources = shards.map((s) => ({ firstDoc: s.firstDoc, sets: s.long }));
      return (sampled) => sampleJaccardPairs(sources, sampled, CALIBRATION_THRESHOLDS[0], pool);
    },
  },
};
