import { mkdtemp, rm, access } from "node:fs/promises";
import { constants as fsConstants } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { chunkCorpus } from "../corpus/chunker.js";
import { checkReadable } from "../corpus/open-input.js";
import { WorkerPool } from "../coordinator/pool.js";
import { PhaseClock, type PhaseTiming } from "../coordinator/phase-clock.js";
import type { Reporter } from "../coordinator/progress.js";
import { DEFAULT_CHUNK_BYTES, type ExecutionOptions } from "../options.js";
import { writeAtomic } from "../util/atomic.js";
import { VertdupError } from "../util/errors.js";
import { packageVersion } from "../util/package-info.js";
import type { LineWarnings } from "./chunk-lines.js";
import { CorpusStore } from "./corpus-store.js";
import { BUCKETS, OCC_WORDS, type ChunkOccurrences, type OccurrenceTask } from "./occurrences.js";
import { checkParagraphOptions, DEFAULT_MEMORY, type ParagraphOptions } from "./options.js";
import { openOutput } from "./output-file.js";
import type { Rendered, RenderStats, RenderTask } from "./render.js";
import type { ChunkRepeats } from "./repeats.js";
import type { BucketSource } from "./corpus-store.js";

/** The JSON report of a `vertdup paragraphs` run (also what the library call returns). */
export interface ParagraphReport {
  version: string;
  inputs: string[];
  output: string;
  options: ParagraphOptions;
  mode: "memory" | "external";
  counts: RenderStats & { chunks: number; lines: number; ngrams: number };
  warnings: LineWarnings;
  phases: Record<string, PhaseTiming>;
}

export interface ParagraphRun {
  /** Bytes of chunks and n-gram occurrences kept in memory before going external. */
  memory?: number;
  /** Where the report goes; none when undefined. */
  reportPath?: string;
}

/** Runs tasks of one kind through the pool and consumes the results in submission order. */
class InOrder<T, C> {
  private readonly pending: { result: Promise<T>; context: C }[] = [];
  constructor(
    private readonly pool: WorkerPool,
    private readonly name: string,
    private readonly consume: (value: T, context: C) => void | Promise<void>,
  ) {}

  async submit(task: unknown, context: C): Promise<void> {
    const { result } = await this.pool.submit<T>(this.name, task);
    this.pending.push({ result, context });
    while (this.pending.length > this.pool.limit) await this.next();
  }

  private async next(): Promise<void> {
    const head = this.pending.shift()!;
    await this.consume(await head.result, head.context);
  }

  async drain(): Promise<void> {
    while (this.pending.length > 0) await this.next();
  }
}

async function checkWritableDir(output: string): Promise<void> {
  if (output === "-") return;
  try {
    await access(dirname(output), fsConstants.W_OK);
  } catch {
    throw new VertdupError(`${output}: cannot write output (directory missing or not writable)`);
  }
}

/**
 * `vertdup paragraphs`: onion-style removal (or marking) of near-duplicate units.
 * Three passes on the worker pool, each over chunks split before document tags:
 * 1. n-grams: every chunk's n-gram occurrences, grouped into buckets by key;
 * 2. repeats: per bucket, in corpus order, the occurrences whose key was already seen
 *    (first occurrence wins), counted per unit;
 * 3. render: per chunk, the onion decision and the output lines, written here in order.
 * The result equals the sequential definition whatever the workers, chunk size and mode.
 */
export async function paragraphs(
  inputs: readonly string[],
  output: string,
  options: ParagraphOptions,
  exec: ExecutionOptions,
  reporter: Reporter,
  run: ParagraphRun = {},
): Promise<ParagraphReport> {
  checkParagraphOptions(options);
  for (const input of inputs) await checkReadable(input);
  if (inputs.filter((i) => i === "-").length > 1) throw new VertdupError("standard input (-) can be given only once");
  await checkWritableDir(output);
  if (run.reportPath !== undefined) await checkWritableDir(run.reportPath);
  const dir = await mkdtemp(join(exec.tmpDir ?? tmpdir(), "vertdup-paragraphs-"));
  const store = new CorpusStore(dir, run.memory ?? DEFAULT_MEMORY);
  const pool = new WorkerPool("paragraphs", exec.workers);
  const clock = new PhaseClock();
  const out = openOutput(output);
  const warnings: LineWarnings = { emptyLine: 0, tagOutsideDoc: 0 };
  const totals = { chunks: 0, lines: 0, ngrams: 0 };
  try {
    // Pass 1: n-gram occurrences per chunk.
    clock.start("ngrams");
    const repeated: Uint32Array[] = [];
    const files: { file: string; firstLine: number }[] = [];
    let tokens = 0;
    const p1 = reporter.progress("n-grams", "tokens");
    const pass1 = new InOrder<ChunkOccurrences, { chunk: number; bytes: Uint8Array }>(pool, "occurrences", (occ, { chunk, bytes }) => {
      store.add(chunk, bytes, occ);
      repeated[chunk] = new Uint32Array(occ.units);
      totals.lines += occ.lines;
      totals.ngrams += occ.occ.length / OCC_WORDS;
      warnings.emptyLine += occ.warnings.emptyLine;
      warnings.tagOutsideDoc += occ.warnings.tagOutsideDoc;
      tokens += occ.tokens;
      p1.update(tokens);
    });
    for await (const chunk of chunkCorpus(inputs, exec.chunkBytes ?? DEFAULT_CHUNK_BYTES)) {
      const task: OccurrenceTask = { file: chunk.file, firstLine: chunk.firstLine, bytes: chunk.bytes, ngram: options.ngram, structure: options.structure, docTag: options.docTag };
      files[chunk.index] = { file: chunk.file, firstLine: chunk.firstLine };
      await pass1.submit(task, { chunk: chunk.index, bytes: chunk.bytes });
      totals.chunks++;
    }
    await pass1.drain();
    store.finishRuns();
    p1.finish();
    clock.stop("ngrams");

    // Pass 2: repeated occurrences per bucket.
    clock.start("repeats");
    const p2 = reporter.progress("repeats", "buckets", BUCKETS);
    let bucketsDone = 0;
    const pass2 = new InOrder<ChunkRepeats[], null>(pool, "repeats", (results) => {
      for (const { chunk, runs } of results) {
        const counts = repeated[chunk];
        for (let i = 0; i < runs.length; i += 2) counts[runs[i]] += runs[i + 1];
      }
      p2.update(++bucketsDone);
    });
    for (let b = 0; b < BUCKETS; b++) await pass2.submit(store.bucket(b) satisfies BucketSource, null);
    await pass2.drain();
    store.dropOccurrences();
    p2.finish();
    clock.stop("repeats");

    // Pass 3: decisions and output, in corpus order.
    clock.start("render");
    const stats: RenderStats = { docsIn: 0, docsOut: 0, paragraphsIn: 0, paragraphsOut: 0, tokensIn: 0, tokensOut: 0, duplicates: 0, stubs: 0 };
    const p3 = reporter.progress("output", "chunks", totals.chunks);
    let rendered = 0;
    const pass3 = new InOrder<Rendered, null>(pool, "render", async (r) => {
      await out.write(r.bytes);
      for (const key of Object.keys(stats) as (keyof RenderStats)[]) stats[key] += r.stats[key];
      p3.update(++rendered);
    });
    for (let c = 0; c < totals.chunks; c++) {
      const task: RenderTask = {
        ...files[c],
        bytes: store.chunkBytes(c),
        repeated: repeated[c],
        structure: options.structure,
        docTag: options.docTag,
        threshold: options.threshold,
        maxStub: options.maxStub,
        mark: options.mark,
      };
      await pass3.submit(task, null);
    }
    await pass3.drain();
    p3.finish();
    if (stats.docsIn === 0) throw new VertdupError(`${inputs.join(", ")}: the corpus has no documents`);
    await out.commit();
    clock.stop("render");

    const report: ParagraphReport = {
      version: packageVersion(),
      inputs: [...inputs],
      output,
      options,
      mode: store.external ? "external" : "memory",
      counts: { ...stats, ...totals },
      warnings,
      phases: clock.timings(),
    };
    if (run.reportPath !== undefined) await writeAtomic(run.reportPath, `${JSON.stringify(report, null, 2)}\n`);
    return report;
  } catch (err) {
    await out.abort();
    throw err;
  } finally {
    store.close();
    await pool.close();
    await rm(dir, { recursive: true, force: true });
  }
}
