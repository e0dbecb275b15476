import { existsSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { readRunFile, writeRunFile } from "../runs/run-file.js";
import { readIndex, requireCompatible, type IndexManifest } from "../supplement/index-store.js";
import { VertdupError } from "../util/errors.js";
import type { ParagraphOptions } from "./options.js";

/**
 * The saved index of `vertdup paragraphs` (src/supplement/index-store.ts holds the manifest):
 * the set of n-gram keys of every occurrence in its corpora, which is all a later batch needs,
 * since an occurrence is repeated when its key occurred anywhere earlier ("first occurrence
 * wins"). Keys are stored per key range — the bucket table of the run that wrote them — as
 * sorted unique keys in a run file (zstd, run-file.ts), so that a batch's bucket table checks
 * membership streaming only the ranges it overlaps, never a whole index in memory.
 */
export const PARAGRAPHS_METHOD = "paragraphs";

/** The options that decide which n-gram keys a corpus has (keyed by CLI name, for requireCompatible). */
export function keyOptions(o: ParagraphOptions): Record<string, unknown> {
  return { "--ngram": o.ngram, "--boundary": o.boundary, "--doc-tag": o.docTag };
}

/** Keys whose high lane starts with the `bits` bits of `prefix` (a bucket, or a part of a split one). */
export interface KeyRange {
  prefix: number;
  bits: number;
}

export function inRange(hi: number, r: KeyRange): boolean {
  return hi >>> (32 - r.bits) === r.prefix;
}

/** Whether two ranges share keys: one's prefix starts the other's. */
export function overlaps(a: KeyRange, b: KeyRange): boolean {
  return a.bits <= b.bits ? b.prefix >>> (b.bits - a.bits) === a.prefix : overlaps(b, a);
}

/** A file of an index's keys: absolute path and the range its keys lie in. */
export interface KeyFile {
  path: string;
  range: KeyRange;
}

const ROLE = /^ngrams g(\d+) ([0-9a-f]+)\/(\d+)$/;

/** The manifest role of the keys of `range` added by the update that writes `generation` (unique in an index). */
export function keyRole(generation: number, r: KeyRange): string {
  return `ngrams g${generation} ${r.prefix.toString(16)}/${r.bits}`;
}

export function keyFileName(r: KeyRange): string {
  return `ngrams-${r.bits}-${r.prefix.toString(16)}.zst`;
}

/** The key files an index lists. */
export function keyFiles(dir: string, manifest: IndexManifest): KeyFile[] {
  const files: KeyFile[] = [];
  for (const [role, path] of Object.entries(manifest.files)) {
    const m = ROLE.exec(role);
    if (m !== null) files.push({ path: join(dir, path), range: { prefix: parseInt(m[2], 16), bits: Number(m[3]) } });
  }
  return files;
}

/** Keys per record: a block compressed together (hi as deltas, which zstd packs well). */
const BLOCK_KEYS = 1 << 16;

interface KeyBlock {
  hiDelta: Uint32Array;
  lo: Uint32Array;
}

/** Writes sorted unique keys (`lo, hi` pairs, by hi then lo) atomically. */
export async function writeKeys(path: string, sorted: Uint32Array): Promise<void> {
  const blocks: KeyBlock[] = [];
  for (let start = 0; start < sorted.length; start += 2 * BLOCK_KEYS) {
    const pairs = sorted.subarray(start, Math.min(sorted.length, start + 2 * BLOCK_KEYS));
    const n = pairs.length / 2;
    const block: KeyBlock = { hiDelta: new Uint32Array(n), lo: new Uint32Array(n) };
    for (let i = 0, prev = 0; i < n; i++) {
      block.lo[i] = pairs[2 * i];
      block.hiDelta[i] = (pairs[2 * i + 1] - prev) >>> 0;
      prev = pairs[2 * i + 1];
    }
    blocks.push(block);
  }
  await writeRunFile(path, blocks);
}

/** The keys of a file written by writeKeys, streaming, one block (`lo, hi` pairs) at a time. */
export async function* readKeys(path: string): AsyncGenerator<Uint32Array> {
  for await (const block of readRunFile<KeyBlock>(path)) {
    const n = block.lo.length;
    const pairs = new Uint32Array(2 * n);
    for (let i = 0, hi = 0; i < n; i++) {
      hi = (hi + block.hiDelta[i]) >>> 0;
      pairs[2 * i] = block.lo[i];
      pairs[2 * i + 1] = hi;
    }
    yield pairs;
  }
}

function samePlace(a: string, b: string): boolean {
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p));
  return real(a) === real(b);
}

export interface SavedIndex {
  dir: string;
  manifest: IndexManifest;
  files: KeyFile[];
}

/**
 * The `--against` indices, each checked to be an index of `vertdup paragraphs` with the same
 * key options, and none the run's own work directory.
 */
export async function openIndices(dirs: readonly string[], options: ParagraphOptions, workdir: string | undefined): Promise<SavedIndex[]> {
  const indices: SavedIndex[] = [];
  for (const dir of dirs) {
    if (workdir !== undefined && samePlace(dir, workdir)) {
      throw new VertdupError(`${dir}: the --against index is also this run's work directory (-w), which the run clears: give another -w`);
    }
    const manifest = await readIndex(dir);
    requireCompatible(dir, manifest, PARAGRAPHS_METHOD, keyOptions(options));
    indices.push({ dir, manifest, files: keyFiles(dir, manifest) });
  }
  return indices;
}
