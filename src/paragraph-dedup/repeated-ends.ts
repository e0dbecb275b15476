import { unlinkSync } from "node:fs";
import { join } from "node:path";
import { readRecords, RecordWriter } from "./record-file.js";

/** Group files in external mode: fixed, so open files and buffers do not grow with the corpus. */
const GROUPS = 64;

/**
 * Which n-grams were repeated, per chunk: one bit per token of the chunk, set when the n-gram
 * that ends at that token occurred earlier in the corpus. That is what both counting rules
 * need (decide.ts): the count of a unit's bits, or the tokens their n-grams cover. The bucket
 * results arrive bucket by bucket while the output pass needs them chunk by chunk. In memory
 * mode one bitmap per chunk. In external mode the results go to GROUPS files of consecutive
 * chunks, and the output pass reads one group file at a time: memory holds the bitmaps of
 * one group's chunks (1/GROUPS of the corpus's tokens, one bit each) instead of all of them.
 */
export class RepeatedEnds {
  private readonly mem: Uint32Array[] = [];
  private readonly writers: RecordWriter[] = [];
  private readonly perGroup: number;
  private loadedGroup = -1;
  private loaded: Uint32Array[] = [];

  /** `tokens`: tokens per chunk. */
  constructor(
    private readonly dir: string,
    private readonly tokens: readonly number[],
    readonly external: boolean,
  ) {
    this.perGroup = Math.max(1, Math.ceil(tokens.length / GROUPS));
    if (!external) {
      this.mem = tokens.map(bitmap);
      return;
    }
    for (let g = 0; g * this.perGroup < tokens.length; g++) this.writers.push(new RecordWriter(this.groupPath(g)));
  }

  private groupPath(g: number): string {
    return join(this.dir, `repeats-${g}.run`);
  }

  /** The results of one bucket task: records `chunk, words, end…` (repeats.ts). */
  add(results: Uint32Array): void {
    for (let at = 0; at < results.length; at += 2 + results[at + 1]) {
      const chunk = results[at];
      const ends = results.subarray(at + 2, at + 2 + results[at + 1]);
      if (this.external) this.writers[Math.floor(chunk / this.perGroup)].add(chunk, ends);
      else setBits(this.mem[chunk], ends);
    }
  }

  /** Call once every bucket's results are added (again on failure: a no-op then). */
  finish(): void {
    for (const w of this.writers.splice(0)) w.close();
  }

  /** The bitmap of a chunk, once; chunks are asked for in corpus order. */
  take(chunk: number): Uint32Array {
    if (!this.external) {
      const bits = this.mem[chunk];
      this.mem[chunk] = new Uint32Array(0);
      return bits;
    }
    const g = Math.floor(chunk / this.perGroup);
    if (g !== this.loadedGroup) this.load(g);
    return this.loaded[chunk - g * this.perGroup];
  }

  private load(g: number): void {
    const first = g * this.perGroup;
    const end = Math.min(this.tokens.length, first + this.perGroup);
    this.loaded = this.tokens.slice(first, end).map(bitmap);
    const path = this.groupPath(g);
    for (const { chunk, data } of readRecords(path, 1)) setBits(this.loaded[chunk - first], data);
    unlinkSync(path);
    this.loadedGroup = g;
  }
}

function bitmap(tokens: number): Uint32Array {
  return new Uint32Array((tokens + 31) >>> 5);
}

function setBits(bits: Uint32Array, ends: Uint32Array): void {
  for (let i = 0; i < ends.length; i++) bits[ends[i] >>> 5] |= 1 << (ends[i] & 31);
}

/** Whether the n-gram ending at token `end` of the chunk was repeated. */
export function isRepeated(bits: Uint32Array, end: number): boolean {
  return (bits[end >>> 5] & (1 << (end & 31))) !== 0;
}
