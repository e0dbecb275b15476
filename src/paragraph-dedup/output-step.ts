import type { SkippedDocs } from "../corpus/chunker.js";
import { VertdupError } from "../core/errors.js";
import type { ParagraphOptions } from "../core/paragraph-options.js";
import { InOrder } from "../executor/in-order.js";
import type { TaskPool } from "../executor/in-process-pool.js";
import type { ParagraphTasks } from "./paragraphs-entry.js";
import type { Reporter } from "../executor/progress.js";
import { markerStats, runTasks } from "../executor/tasks.js";
import type { PhaseClock, PhaseTiming } from "../executor/timing.js";
import { openOutput } from "../output/output-file.js";
import { writeAtomic } from "../util/atomic.js";
import { packageVersion } from "../util/package-info.js";
import type { Scan } from "./ngrams-step.js";
import type { LineWarnings } from "./occurrences.js";
import type { Repeats } from "./repeats-step.js";
import type { RenderStats, RenderTask } from "./render.js";

/** The JSON report of a `vertdup paragraphs` run (also what the library call returns). */
export interface ParagraphReport {
  version: string;
  inputs: string[];
  output: string;
  /** The saved indices whose n-grams counted as seen before the inputs (`--against`). */
  against: string[];
  options: ParagraphOptions;
  mode: "memory" | "external";
  /** The passes ran in the main thread (small inputs), not on the worker pool. */
  inProcess: boolean;
  /** `tables`: bucket tables of the repeats pass (more than the 256 buckets when split). */
  counts: RenderStats & { chunks: number; lines: number; ngrams: number; tables: number };
  /** With the documents skipped for their size (--oversize skip), left out of the output. */
  warnings: LineWarnings & { oversizeSkipped?: SkippedDocs };
  phases: Record<string, PhaseTiming>;
}

/** The output step's marker: the output and the report are in place; it holds the report. */
export const RENDER_MARKER = "paragraphs-render";

/** What the output step writes, and what its report says besides the passes' results. */
export interface OutputSetup {
  inputs: readonly string[];
  output: string;
  /** Where the report goes; none when undefined. */
  reportPath?: string;
  against: readonly string[];
  options: ParagraphOptions;
  inProcess: boolean;
}

/**
 * Pass 3, one task (with the work directory `saves`, its marker says the output is in place):
 * per chunk, in corpus order, the repeated share of each unit, onion's decision and the
 * output bytes, written in order to the output, committed once complete; then the report.
 */
export async function outputStep(saves: string | null, s: OutputSetup, scan: Scan, repeats: Repeats, clock: PhaseClock, pool: TaskPool<ParagraphTasks>, reporter: Reporter): Promise<ParagraphReport> {
  const write = async (): Promise<ParagraphReport> => {
    clock.start("render");
    const stats = await render(s, scan, repeats, pool, reporter);
    clock.stop("render");
    const report: ParagraphReport = {
      version: packageVersion(),
      inputs: [...s.inputs],
      output: s.output,
      against: [...s.against],
      options: s.options,
      mode: repeats.external ? "external" : "memory",
      inProcess: s.inProcess,
      counts: { ...stats, ...scan.totals, tables: repeats.tables },
      warnings: scan.skipped.documents > 0 ? { ...scan.warnings, oversizeSkipped: scan.skipped } : scan.warnings,
      phases: clock.timings(),
    };
    if (s.reportPath !== undefined) await writeAtomic(s.reportPath, `${JSON.stringify(report, null, 2)}\n`);
    return report;
  };
  const [report] = await runTasks(saves, [{ marker: RENDER_MARKER, start: async () => ({ result: write() }), load: markerStats<ParagraphReport>(saves as string, RENDER_MARKER), stats: (r) => r }]);
  return report;
}

/** The output written from the chunks' layouts and repeated n-grams; what it kept and removed. */
async function render(s: OutputSetup, scan: Scan, repeats: Repeats, pool: TaskPool<ParagraphTasks>, reporter: Reporter): Promise<RenderStats> {
  const { store, totals } = scan;
  const { options } = s;
  scan.places.checkUnchanged();
  const out = await openOutput(s.output);
  try {
    const stats: RenderStats = { docsIn: 0, docsOut: 0, paragraphsIn: 0, paragraphsOut: 0, tokensIn: 0, tokensOut: 0, duplicates: 0, stubs: 0 };
    const progress = reporter.progress("output", "chunks", totals.chunks);
    let rendered = 0;
    // Output buffers go back to the workers once written, so their number stays fixed.
    const free: ArrayBuffer[] = [];
    const pass = new InOrder(pool, "render", async (r) => {
      await out.write(r.bytes, () => free.push(r.bytes.buffer as ArrayBuffer));
      for (const key of Object.keys(stats) as (keyof RenderStats)[]) stats[key] += r.stats[key];
      progress.update(++rendered);
    });
    for (let c = 0; c < totals.chunks; c++) {
      const reuse = free.pop() ?? null;
      const task: RenderTask = { ...store.take(c), repeated: repeats.ends.take(c), count: options.count, ngram: options.ngram, threshold: options.threshold, maxStub: options.maxStub, mark: options.mark, reuse };
      // The coordinator is done with these buffers: moved, not copied.
      const owned = [task.bytes, task.layout, task.repeated].flatMap((b) => (b instanceof Uint8Array || b instanceof Uint32Array) && b.buffer instanceof ArrayBuffer ? [b.buffer] : []);
      await pass.submit(task, null, reuse === null ? owned : [...owned, reuse]);
    }
    await pass.drain();
    progress.finish();
    if (stats.docsIn === 0) throw new VertdupError(`${s.inputs.join(", ")}: the corpus has no documents`);
    await out.commit();
    return stats;
  } catch (err) {
    await out.abort();
    throw err;
  }
}
