import { readChunkCounts } from "./count-step.js";
import { addWarnings, emptyWarnings, type ReaderWarnings } from "../corpus/vertical.js";
import type { ShardStats } from "./count-shard.js";
import { mergeLimit, writeShardVocabulary } from "./vocabulary.js";
import { VertdupError } from "../core/errors.js";
import type { CorpusCounts } from "./prepare-manifest.js";
import type { Reporter } from "../executor/progress.js";
import type { RunConfig } from "../workdir/run-config.js";
import { vocabularyFile } from "../workdir/layout.js";
import { runWholeTask } from "../executor/tasks.js";
import { requireShardMarkers } from "../workdir/require.js";

/** Corpus-wide counts known after pass 1, kept in the `vocabulary` marker. */
export interface VocabularyStats extends CorpusCounts {
  warnings: ReaderWarnings;
}

/**
 * Merges the shards' document frequencies, reduces the vocabulary by --min-df/--max-df and
 * writes the kept terms with their df (`vocab.zst`: the terms of df = 1 as they come, then
 * the VocabularyHeader, which the sign pass reads alone): everything pass 2 needs, on any machine.
 * `memory` (--memory) bounds the df entries merged at once; the file does not depend on it. One task of the executor, marked
 * `vocabulary`.
 */
export function vocabularyStep(workdir: string, config: RunConfig, reporter: Reporter, memory?: number): Promise<VocabularyStats> {
  return runWholeTask(workdir, "vocabulary", () => mergeVocabulary(workdir, config, reporter, memory));
}

async function mergeVocabulary(workdir: string, config: RunConfig, reporter: Reporter, memory?: number): Promise<VocabularyStats> {
  const { shards } = await readChunkCounts(workdir);
  const stats = await requireShardMarkers<ShardStats>(workdir, "count", shards);
  const documents = stats.reduce((n, s) => n + s.docs, 0);
  if (documents === 0) throw new VertdupError(`${config.inputs.map((i) => i.path).join(", ")}: the corpus has no documents`);
  const warnings = emptyWarnings();
  for (const s of stats) addWarnings(warnings, s.warnings);
  const { terms, repeated, once } = writeShardVocabulary(workdir, shards, documents, config.prepare, vocabularyFile(workdir), mergeLimit(memory));
  const kept = repeated + once;
  reporter.info(`vocabulary: ${terms} terms, ${kept} kept (${terms - kept} outside the df limits)`);
  return {
    shards,
    documents,
    tokens: stats.reduce((n, s) => n + s.tokens, 0),
    keptTokens: stats.reduce((n, s) => n + s.keptTokens, 0),
    terms,
    keptTerms: kept,
    warnings,
  };
}
