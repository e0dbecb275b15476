import type { ScoredPairs } from "../../eval/pairs-file.js";
import { VertdupError } from "../../core/errors.js";
import { integerOrder } from "../../util/radix-order.js";
import { growableF64, growableU32 } from "../../util/typed-arrays.js";
import { sortUnique } from "./jaccard.js";
import { readSets } from "../minhash/minhash.js";
import { meetsThreshold } from "../../util/similarity-threshold.js";

/** Sets of a shard's documents, flat (document i's follow those of documents < i), in any order and with repeats. */
export interface FlatSetList {
  lengths: Uint32Array;
  values: Float64Array;
}

/**
 * Where a worker finds a shard's sets: a minhash sets file (minhash.ts), or the sets
 * themselves (the paragraphs method keeps them in memory).
 */
export type SetSource = { firstDoc: number } & ({ file: string } | { sets: FlatSetList });

function setsOf(source: SetSource): FlatSetList {
  return "file" in source ? readSets(source.file) : source.sets;
}

interface SourceTask {
  source: SetSource;
  /** Flags per corpus ordinal (shared). */
  sampled: Uint8Array;
}

/** Sample task: the sampled documents of a shard with their sets, sorted and without repeats. */
export function sampleSets(task: SourceTask): { ordinals: Uint32Array; lengths: Uint32Array; values: Float64Array } {
  const { lengths, values } = setsOf(task.source);
  const ordinals = growableU32();
  const sizes = growableU32();
  const out = growableF64();
  let from = 0;
  for (let i = 0; i < lengths.length; i++) {
    const d = task.source.firstDoc + i;
    if (task.sampled[d] === 1) {
      const set = values.slice(from, from + lengths[i]);
      const n = sortUnique(set);
      ordinals.append([d]);
      sizes.append([n]);
      out.append(set.subarray(0, n));
    }
    from += lengths[i];
  }
  return { ordinals: ordinals.view().slice(), lengths: sizes.view().slice(), values: out.view().slice() };
}

/**
 * The sampled sets inverted: every distinct element of the sample, the sample rows holding
 * it, and an open-addressing table from an element to its index (shared memory: one copy
 * for every worker).
 */
export interface SampleIndex {
  /** Corpus ordinal and set size of each sample row. */
  ordinals: Uint32Array;
  sizes: Uint32Array;
  /** The distinct elements, and the rows holding elements[k]: rows[ptr[k], ptr[k + 1]). */
  elements: Float64Array;
  ptr: Uint32Array;
  rows: Uint32Array;
  /** Given to sampleIndex: the weight of each entry, weights[q] for rows[q]. */
  weights?: Float64Array;
  /** Table of 2^bits slots: index + 1 into `elements`, 0 for an empty slot. */
  slots: Uint32Array;
  bits: number;
}

/** Most distinct elements of the sample's sets: the table's 2^30 slots (4 GiB) are the limit of its 32-bit arithmetic. */
const MAX_ELEMENTS = 2 ** 29;

/** Slot of an element in a table of 2^bits (the elements are uniform hashes: the multiply only spreads their low word). */
function slotOf(value: number, bits: number): number {
  return Math.imul(value | 0, 0x9e3779b1) >>> (32 - bits);
}

function inSharedMemory<T extends Uint32Array | Float64Array>(array: T): T {
  const copy = new (array.constructor as new (buffer: SharedArrayBuffer) => T)(new SharedArrayBuffer(array.byteLength));
  copy.set(array as never);
  return copy;
}

/** The index of `value` in `index.elements`, −1 when no sampled set holds it. */
export function lookup(index: SampleIndex, value: number): number {
  const mask = (1 << index.bits) - 1;
  for (let s = slotOf(value, index.bits); ; s = (s + 1) & mask) {
    const k = index.slots[s];
    if (k === 0 || index.elements[k - 1] === value) return k - 1;
  }
}

/**
 * The index of the sample's rows: row r's set (sorted, without repeats; 53-bit integers) of
 * sizes[r] elements follows those of rows < r in `values`; `weights`, when given, a weight
 * per entry of `values`, which the index keeps beside its rows.
 */
export function sampleIndex(ordinals: Uint32Array, sizes: Uint32Array, values: Float64Array, weights?: Float64Array): SampleIndex {
  const n = values.length;
  const rowOf = new Uint32Array(n);
  for (let r = 0, at = 0; r < sizes.length; at += sizes[r++]) rowOf.fill(r, at, at + sizes[r]);
  // Entries by element, then position (row-major): each element's rows come out increasing.
  const order = integerOrder(values, n);
  let distinct = 0;
  for (let k = 0; k < n; k++) if (k === 0 || values[order[k]] !== values[order[k - 1]]) distinct++;
  const elements = new Float64Array(distinct);
  const ptr = new Uint32Array(distinct + 1);
  const rows = new Uint32Array(n);
  const entryWeights = weights === undefined ? undefined : new Float64Array(n);
  let e = -1;
  for (let k = 0; k < n; k++) {
    if (k === 0 || values[order[k]] !== values[order[k - 1]]) elements[++e] = values[order[k]];
    rows[k] = rowOf[order[k]];
    if (entryWeights !== undefined) entryWeights[k] = weights![order[k]];
    ptr[e + 1] = k + 1;
  }
  if (distinct > MAX_ELEMENTS) throw new VertdupError(`the sampled documents' sets hold ${distinct} distinct elements, more than ${MAX_ELEMENTS}: give a smaller --sample`);
  const bits = Math.max(4, Math.ceil(Math.log2(2 * distinct + 1)));
  const slots = new Uint32Array(1 << bits);
  const mask = (1 << bits) - 1;
  for (let k = 0; k < distinct; k++) {
    let s = slotOf(elements[k], bits);
    while (slots[s] !== 0) s = (s + 1) & mask;
    slots[s] = k + 1;
  }
  return { ordinals: inSharedMemory(ordinals), sizes: inSharedMemory(sizes), elements: inSharedMemory(elements), ptr: inSharedMemory(ptr), rows: inSharedMemory(rows), ...(entryWeights === undefined ? {} : { weights: inSharedMemory(entryWeights) }), slots: inSharedMemory(slots), bits };
}

/**
 * Score task: every pair of a shard's document with a sampled one whose exact Jaccard is ≥
 * threshold. Each element of a document is looked up once (repeats are skipped by a stamp
 * per element) and counts one shared element for every sample row holding it; a document
 * sharing nothing with a row has Jaccard 0 with it, so the result is the brute force's.
 * The document's distinct size is computed only when one of its counts could reach the
 * threshold (Jaccard ≤ shared / |row|). A pair of two sampled documents is taken from the
 * later one's side only.
 */
export function sampleJaccards(task: SourceTask & { index: SampleIndex; threshold: number }): ScoredPairs {
  const { index, sampled, threshold } = task;
  const { lengths, values } = setsOf(task.source);
  const shared = new Uint32Array(index.ordinals.length);
  const touched = new Uint32Array(index.ordinals.length);
  const stamp = new Uint32Array(index.elements.length);
  let scratch = new Float64Array(1024);
  const a = growableU32();
  const b = growableU32();
  const similarity = growableF64();
  let from = 0;
  for (let i = 0; i < lengths.length; from += lengths[i++]) {
    const d = task.source.firstDoc + i;
    let hits = 0;
    let reachable = false;
    for (let p = from; p < from + lengths[i]; p++) {
      const k = lookup(index, values[p]);
      if (k < 0 || stamp[k] === d + 1) continue;
      stamp[k] = d + 1;
      for (let q = index.ptr[k]; q < index.ptr[k + 1]; q++) {
        const r = index.rows[q];
        if (shared[r] === 0) touched[hits++] = r;
        // The tolerance keeps t·|row| from rounding past an exact product (0.7 · 10); it is
        // wider than meetsThreshold's, so no pair meeting the threshold is pruned.
        if (++shared[r] >= threshold * index.sizes[r] - 1e-9) reachable = true;
      }
    }
    let size = 0;
    if (reachable) {
      if (scratch.length < lengths[i]) scratch = new Float64Array(2 * lengths[i]);
      const set = scratch.subarray(0, lengths[i]);
      set.set(values.subarray(from, from + lengths[i]));
      size = sortUnique(set);
    }
    for (let h = 0; h < hits; h++) {
      const r = touched[h];
      const common = shared[r];
      shared[r] = 0;
      const s = index.ordinals[r];
      if (!reachable || s === d || (sampled[d] === 1 && s > d)) continue;
      const jaccard = common / (index.sizes[r] + size - common);
      if (!meetsThreshold(jaccard, threshold)) continue;
      a.append([Math.min(s, d)]);
      b.append([Math.max(s, d)]);
      similarity.append([jaccard]);
    }
  }
  return { a: a.view().slice(), b: b.view().slice(), similarity: similarity.view().slice() };
}
