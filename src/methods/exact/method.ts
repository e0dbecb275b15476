import { emptyDocuments } from "../sets/first-of.js";
import { readerIndexOptions } from "../sets/method-index.js";
import type { SetMethodSpec } from "../sets/set-method.js";
import { exactGraph, type ExactShard } from "./exact.js";

/** exact: SHA-256 of each document's normalised token stream; no calibration (recall and precision 1 by construction). */
export const EXACT: SetMethodSpec<ExactShard> = {
  similarity: "1 for documents with identical normalised token streams (SHA-256)",
  features: { task: "exact", of: "kept token", decidedBy: "--column, --keep-numbers" },
  emptyDocuments,
  indexOptions: readerIndexOptions,
  search: async (shards, documents, _run, { part }) => ({ graph: exactGraph(shards, documents, part), candidates: 0 }),
};
