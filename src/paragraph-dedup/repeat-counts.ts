import { unlinkSync } from "node:fs";
import { join } from "node:path";
import { readRecords, RecordWriter } from "./record-file.js";

/** Group files in external mode: fixed, so open files and buffers do not grow with the corpus. */
const GROUPS = 64;

/**
 * The repeated occurrences per unit, summed over the buckets' results, which arrive bucket
 * by bucket while the output pass needs them chunk by chunk. In memory mode one array per
 * chunk. In external mode the results go to GROUPS files of consecutive chunks, and the
 * output pass sums one group file at a time: memory holds the counts of one group's chunks
 * (1/GROUPS of the corpus's units) instead of all of them.
 */
export class RepeatCounts {
  private readonly mem: Uint32Array[] = [];
  private readonly writers: RecordWriter[] = [];
  private readonly perGroup: number;
  private loadedGroup = -1;
  private loaded: Uint32Array[] = [];

  constructor(
    private readonly dir: string,
    private readonly units: readonly number[],
    readonly external: boolean,
  ) {
    this.perGroup = Math.max(1, Math.ceil(units.length / GROUPS));
    if (!external) {
      this.mem = units.map((u) => new Uint32Array(u));
      return;
    }
    for (let g = 0; g * this.perGroup < units.length; g++) this.writers.push(new RecordWriter(this.groupPath(g)));
  }

  private groupPath(g: number): string {
    return join(this.dir, `repeats-${g}.run`);
  }

  /** The results of one bucket task: records `chunk, words, (unit, count)…` (repeats.ts). */
  add(results: Uint32Array): void {
    for (let at = 0; at < results.length; at += 2 + results[at + 1]) {
      const chunk = results[at];
      const runs = results.subarray(at + 2, at + 2 + results[at + 1]);
      if (this.external) {
        this.writers[Math.floor(chunk / this.perGroup)].add(chunk, runs);
        continue;
      }
      const counts = this.mem[chunk];
      for (let i = 0; i < runs.length; i += 2) counts[runs[i]] += runs[i + 1];
    }
  }

  /** Call once every bucket's results are added (again on failure: a no-op then). */
  finish(): void {
    for (const w of this.writers.splice(0)) w.close();
  }

  /** The counts of a chunk, once; chunks are asked for in corpus order. */
  take(chunk: number): Uint32Array {
    if (!this.external) {
      const counts = this.mem[chunk];
      this.mem[chunk] = new Uint32Array(0);
      return counts;
    }
    const g = Math.floor(chunk / this.perGroup);
    if (g !== this.loadedGroup) this.load(g);
    return this.loaded[chunk - g * this.perGroup];
  }

  private load(g: number): void {
    const first = g * this.perGroup;
    const end = Math.min(this.units.length, first + this.perGroup);
    this.loaded = [];
    for (let c = first; c < end; c++) this.loaded.push(new Uint32Array(this.units[c]));
    const path = this.groupPath(g);
    for (const { chunk, data } of readRecords(path, 2)) {
      const counts = this.loaded[chunk - first];
      for (let i = 0; i < data.length; i += 2) counts[data[i]] += data[i + 1];
    }
    unlinkSync(path);
    this.loadedGroup = g;
  }
}
