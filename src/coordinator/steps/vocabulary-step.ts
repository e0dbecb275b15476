import { addWarnings, emptyWarnings, type ReaderWarnings } from "../../corpus/vertical.js";
import type { ShardStats } from "../../features/count-shard.js";
import { mergeShardVocabulary, type RepeatedTerms } from "../../features/vocabulary.js";
import { encodeRecords } from "../../runs/run-file.js";
import { writeAtomic } from "../../util/atomic.js";
import { VertdupError } from "../../util/errors.js";
import type { CorpusCounts } from "../prepare-manifest.js";
import type { Reporter } from "../progress.js";
import type { RunConfig } from "../run-config.js";
import { vocabularyFile } from "../workdir.js";
import { runWholeTask } from "../../executor/tasks.js";
import { readChunkCounts, requireShardMarkers } from "./require.js";

/** Corpus-wide counts known after pass 1, kept in the `vocabulary` marker. */
export interface VocabularyStats extends CorpusCounts {
  warnings: ReaderWarnings;
}

/**
 * Merges the shards' document frequencies, reduces the vocabulary by --min-df/--max-df and
 * writes the kept terms with their df (`vocab.zst`, then the sign pass's RepeatedTerms as a
 * second record): everything pass 2 needs, on any machine. One task of the executor, marked
 * `vocabulary`.
 */
export function vocabularyStep(workdir: string, config: RunConfig, reporter: Reporter): Promise<VocabularyStats> {
  return runWholeTask(workdir, "vocabulary", () => mergeVocabulary(workdir, config, reporter));
}

async function mergeVocabulary(workdir: string, config: RunConfig, reporter: Reporter): Promise<VocabularyStats> {
  const { shards } = await readChunkCounts(workdir);
  const stats = await requireShardMarkers<ShardStats>(workdir, "count", shards);
  const documents = stats.reduce((n, s) => n + s.docs, 0);
  if (documents === 0) throw new VertdupError(`${config.inputs.map((i) => i.path).join(", ")}: the corpus has no documents`);
  const warnings = emptyWarnings();
  for (const s of stats) addWarnings(warnings, s.warnings);
  const { kept, terms, repeated, excess, keepsOnce } = mergeShardVocabulary(workdir, shards, documents, config.prepare);
  const signing: RepeatedTerms = { repeated, excess, keepsOnce };
  await writeAtomic(vocabularyFile(workdir), encodeRecords([kept, signing]));
  reporter.info(`vocabulary: ${terms} terms, ${kept.terms.length} kept (${terms - kept.terms.length} outside the df limits)`);
  return {
    shards,
    documents,
    tokens: stats.reduce((n, s) => n + s.tokens, 0),
    keptTokens: stats.reduce((n, s) => n + s.keptTokens, 0),
    terms,
    keptTerms: kept.terms.length,
    warnings,
  };
}
