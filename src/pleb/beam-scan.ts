/**
 * The beam scan of one PLEB iteration: in the sorted order, each signature is compared with
 * the next `beam` ones only. The thesis's one-sided beam: the pair (order[p], order[q]) with
 * p < q ≤ p + beam is seen from p only, so each unordered pair is compared once per iteration
 * — half the work of comparing both sides.
 */

import { Triples } from "../util/triples.js";
import { beamWindow } from "./beam-scan-wasm.js";
import { hammingWithin, popcount2 } from "./hamming.js";

/**
 * Words of the prefix filter: the smallest even P ≤ W (W is even: bits ≡ 0 mod 64) with 16P − 4·√(8P) > maxDistance. Two
 * unrelated signatures differ in ≈ half their bits, so in P words by ≈ 16P ± √(8P) (binomial
 * 32P, ½); at 4σ above maxDistance nearly every far pair is rejected by its prefix alone.
 */
export function prefixWords(W: number, maxDistance: number): number {
  let P = 2;
  while (P < W && 16 * P - 4 * Math.sqrt(8 * P) <= maxDistance) P += 2;
  return Math.min(P, W);
}

/** Positions per block of gatherBeam: their prefixes' cache lines (16 KiB) stay in the L1 or L2 cache between its two loops. */
const GATHER_BLOCK = 256;
/** The touched words of gatherBeam, kept so that their loads are not dropped as unused. */
let gatherTouch = 0;

/** A chunk's gathered arrays, positions k local to it (k = p − from). */
interface Gathered {
  prefix: Uint32Array;
  label: Uint32Array;
  next: Uint32Array;
}

/**
 * What the scan reads of each signature, laid out by position in the sorted order
 * (scatterSorted): the first P words (prefixWords) of each position's signature, its label and
 * whether it is fresh, for all n positions. Gathering them through the order is one random
 * read of the store per position; scatterSorted reads the store in its own order instead and
 * writes each signature's words at its position, about twice as fast (a batch's scan reads
 * nearly every position: almost all lie within `beam` of a fresh one).
 */
export interface SortedPrefixes {
  prefix: Uint32Array;
  /** The label of each position (the labels given to beamScan), if any. */
  label?: Uint32Array;
  /** The fresh flag of each position (the `fresh` given to beamScan), if any. */
  fresh?: Uint8Array;
}

/** rank[order[k]] = k for the positions k ∈ [from, to): the position of each signature (a pool task's share). */
export function rankPositions(order: Uint32Array, rank: Uint32Array, from: number, to: number): void {
  for (let k = from; k < to; k++) rank[order[k]] = k;
}

/**
 * For the store indices i ∈ [from, to): the first P words of signature i, its label and its
 * fresh flag written at its position rank[i] of `into` (a pool task's share; disjoint ranges
 * write disjoint positions). The store is read in order, the writes scatter.
 */
export function scatterSorted(
  store: Uint32Array,
  W: number,
  P: number,
  rank: Uint32Array,
  from: number,
  to: number,
  into: SortedPrefixes,
  labels?: Uint32Array,
  fresh?: Uint8Array,
): void {
  const { prefix, label } = into;
  for (let i = from; i < to; i++) {
    const src = i * W;
    const dst = rank[i] * P;
    for (let w = 0; w < P; w++) prefix[dst + w] = store[src + w];
  }
  if (labels !== undefined && label !== undefined) for (let i = from; i < to; i++) label[rank[i]] = labels[i];
  if (fresh !== undefined && into.fresh !== undefined) for (let i = from; i < to; i++) into.fresh[rank[i]] = fresh[i];
}

/**
 * The first P words (prefixWords) of every signature, by store index, in shared memory: what
 * the scan gathers through the order, P/W of the store, so that more of its random reads hit
 * the processor's cache (a 1024-bit signature's prefix at threshold 0.95 is 6 of its 32 words).
 */
export function storePrefixes(store: Uint32Array, W: number, P: number): Uint32Array {
  const n = store.length / W;
  const prefixes = new Uint32Array(new SharedArrayBuffer(n * P * 4));
  for (let i = 0; i < n; i++) for (let w = 0; w < P; w++) prefixes[i * P + w] = store[i * W + w];
  return prefixes;
}

/**
 * Gathers what the scan of positions [from, to) reads, into `into` (arrays of span·P, span
 * and span + 1, span = min(n, to + beam) − from): the first P words of each position's
 * signature; its label (the position itself without `labels`); next[k], the first k' ≥ k
 * whose signature is fresh (k itself without `fresh`; next[span] = span). With `sorted`
 * (laid out by position, scatterSorted), they are copied from it in order.
 */
function gatherBeam(
  store: Uint32Array,
  W: number,
  P: number,
  order: Uint32Array,
  from: number,
  span: number,
  beam: number,
  labels: Uint32Array | undefined,
  fresh: Uint8Array | undefined,
  into: Gathered,
  sorted?: SortedPrefixes,
): void {
  const { prefix, label, next } = into;
  if (sorted !== undefined) {
    prefix.set(sorted.prefix.subarray(from * P, (from + span) * P));
    const freshAt = sorted.fresh;
    next[span] = span;
    for (let k = span - 1; k >= 0; k--) next[k] = freshAt === undefined || freshAt[from + k] === 1 ? k : next[k + 1];
    const labelAt = sorted.label;
    for (let k = 0; k < span; k++) label[k] = labelAt === undefined ? k : labelAt[from + k];
    return;
  }
  next[span] = span;
  for (let k = span - 1; k >= 0; k--) next[k] = fresh === undefined || fresh[order[from + k]] === 1 ? k : next[k + 1];
  for (let k0 = 0; k0 < span; k0 += GATHER_BLOCK) {
    const k1 = Math.min(span, k0 + GATHER_BLOCK);
    // Each prefix is a cache miss (the store is large, the order random). A first loop only
    // loads one word at each end of the block's prefixes: short enough for the processor to
    // have many misses in flight, where the copy loop waits for about one at a time.
    let touched = 0;
    for (let k = k0; k < k1; k++) {
      // A position no pair with a fresh member reaches (none within `beam` of it: the first
      // fresh one from k − beam on lies past k + beam) is never compared: its prefix stays unread.
      if (next[k > beam ? k - beam : 0] - k > beam) continue;
      const src = order[from + k] * W;
      touched ^= store[src] ^ store[src + P - 1];
    }
    gatherTouch ^= touched;
    for (let k = k0; k < k1; k++) {
      if (next[k > beam ? k - beam : 0] - k > beam) continue;
      // A plain loop: a subarray per position would allocate an object each time.
      const src = order[from + k] * W;
      const dst = k * P;
      for (let w = 0; w < P; w++) prefix[dst + w] = store[src + w];
    }
  }
  // Without labels every position gets its own, so no pair is skipped.
  for (let k = 0; k < span; k++) label[k] = labels === undefined ? k : labels[order[from + k]];
}

/**
 * Compares order[p] with order[p+1 … min(p+beam, n−1)] for p ∈ [from, to) (n = order.length)
 * and calls out(i, j, d) for each pair with Hamming distance d ≤ maxDistance, i < j being the
 * two store indices. Chunks [from, to) of the order can be scanned in parallel: a chunk reads
 * up to `beam` positions past its end. Returns the number of pairs reported.
 *
 * Memory, not arithmetic, bounds this loop: neighbours in the sorted order lie anywhere in
 * the store, so each comparison would miss the cache. The first P words (prefixWords) of the
 * chunk's signatures are therefore gathered once, in sorted order, into a small contiguous
 * array (one random read per signature instead of one per comparison), and a pair is
 * compared in full only when its prefix distance is ≤ maxDistance. Distances only grow with
 * more words, so the pairs reported and their distances are exactly those of a full scan.
 *
 * With `labels` (a component label per store index), pairs whose two labels are equal are
 * skipped uncompared: they are known to be joined already (SpanningForest). The labels are
 * gathered in sorted order beside the prefixes, for the same reason.
 *
 * With `fresh` (1 per store index of a signature holding a new document, `--against-scan
 * new`), only the pairs with a fresh member are compared: the positions within `beam` of a
 * fresh one are gathered, a fresh position is compared with all its next `beam`, any other
 * with the fresh ones among them. The pairs reported, and their order, are those of the full
 * scan that have a fresh member; the work is ≈ 2·(fresh positions)·beam comparisons.
 *
 * With `sorted` (SortedPrefixes of this order, with the labels and fresh flags of `labels`
 * and `fresh`), the chunk's prefixes, labels and fresh flags are copied from it instead of
 * gathered through the order: the same pairs. With `prefixes` (storePrefixes of the store),
 * the prefixes are gathered from it instead of the store: the same pairs.
 *
 * The prefix filter runs in WebAssembly (beam-scan-wasm.ts) where it can, else in TypeScript
 * (beamScanTs, the reference): the same pairs in the same order.
 */
export function beamScan(
  store: Uint32Array,
  W: number,
  order: Uint32Array,
  from: number,
  to: number,
  beam: number,
  maxDistance: number,
  out: (i: number, j: number, distance: number) => void,
  labels?: Uint32Array,
  fresh?: Uint8Array,
  sorted?: SortedPrefixes,
  prefixes?: Uint32Array,
): number {
  const span = Math.max(0, Math.min(order.length, to + beam) - from);
  const P = prefixWords(W, maxDistance);
  const window = beamWindow(span, P);
  if (window === null) return beamScanTs(store, W, order, from, to, beam, maxDistance, out, labels, fresh, sorted, prefixes);
  gatherBeam(prefixes ?? store, prefixes === undefined ? W : P, P, order, from, span, beam, labels, fresh, window, sorted);
  const { next } = window;
  const count = Math.max(0, to - from);
  let found = 0;
  let k0 = 0;
  let q0 = 0;
  for (;;) {
    const candidates = window.candidates(k0, q0, count, beam, maxDistance);
    for (let c = 0; c < candidates.length; c += 2) {
      const a = order[from + candidates[c]];
      const b = order[from + candidates[c + 1]];
      const d = hammingWithin(store, a, b, W, maxDistance);
      if (d <= maxDistance) {
        if (a < b) out(a, b, d);
        else out(b, a, d);
        found++;
      }
    }
    if (candidates.length < 2 * window.capacity) return found;
    // A full area: resume after its last candidate, at the position the walk would take next.
    k0 = candidates[candidates.length - 2];
    const q = candidates[candidates.length - 1];
    q0 = next[k0] === k0 ? q + 1 : next[q + 1];
  }
}

/** beamScan's TypeScript loop: the reference, and the fallback where the WebAssembly kernel is unavailable. */
export function beamScanTs(
  store: Uint32Array,
  W: number,
  order: Uint32Array,
  from: number,
  to: number,
  beam: number,
  maxDistance: number,
  out: (i: number, j: number, distance: number) => void,
  labels?: Uint32Array,
  fresh?: Uint8Array,
  sorted?: SortedPrefixes,
  prefixes?: Uint32Array,
): number {
  const n = order.length;
  const span = Math.max(0, Math.min(n, to + beam) - from);
  const P = prefixWords(W, maxDistance);
  const gathered = { prefix: new Uint32Array(span * P), label: new Uint32Array(span), next: new Uint32Array(span + 1) };
  gatherBeam(prefixes ?? store, prefixes === undefined ? W : P, P, order, from, span, beam, labels, fresh, gathered, sorted);
  const { prefix, label, next } = gathered;
  let found = 0;
  for (let p = from; p < to; p++) {
    const a = order[p];
    const end = Math.min(n, p + beam + 1) - from;
    const k = p - from;
    const pa = k * P;
    const la = label[k];
    // A fresh position (or any, without `fresh`) meets every next one; another only the fresh ones.
    const all = next[k] === k;
    for (let q = all ? k + 1 : next[k + 1]; q < end; q = all ? q + 1 : next[q + 1]) {
      if (label[q] === la) continue;
      let x = pa;
      let y = q * P;
      const xEnd = x + P;
      let d = 0;
      // Two words per step (P is even), stopping as soon as the prefix is too far apart.
      while (x < xEnd && d <= maxDistance) {
        d += popcount2(prefix[x++] ^ prefix[y++], prefix[x++] ^ prefix[y++]);
      }
      if (d > maxDistance) continue;
      const b = order[from + q];
      d = hammingWithin(store, a, b, W, maxDistance);
      if (d <= maxDistance) {
        if (a < b) out(a, b, d);
        else out(b, a, d);
        found++;
      }
    }
  }
  return found;
}

/** beamScan (skipping pairs with equal `labels`, comparing only pairs with a `fresh` member, if given; reading `sorted` or `prefixes`, if given) collecting the pairs into `into` (a new Triples by default), which it returns. */
export function beamScanPairs(
  store: Uint32Array,
  W: number,
  order: Uint32Array,
  from: number,
  to: number,
  beam: number,
  maxDistance: number,
  into: Triples = new Triples(),
  labels?: Uint32Array,
  fresh?: Uint8Array,
  sorted?: SortedPrefixes,
  prefixes?: Uint32Array,
): Triples {
  beamScan(store, W, order, from, to, beam, maxDistance, (i, j, d) => into.push(i, j, d), labels, fresh, sorted, prefixes);
  return into;
}
