import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { ExecutionOptions, PlebOptions } from "../core/options.js";
import type { SignatureStore } from "../runs/signature-store.js";
import type { TaskPool } from "../executor/in-process-pool.js";
import type { PlebTasks } from "./pleb-entry.js";
import type { FoundPairs } from "./found-pairs.js";
import { maxDistanceFor } from "./hamming.js";
import { prefixWords, storePrefixes, type SortedPrefixes } from "./beam-scan.js";
import type { PairVerifier } from "./pair-verifier.js";
import { SpanningForest } from "./spanning-forest.js";
import { sortOrder } from "../util/radix-order.js";
import { secondsSince } from "../executor/timing.js";
import { BitPermutation } from "./permutation.js";
import { mergeStoredKeys, oldInCombined, readSortedKeys, sortedKeysName, writeSortedKeys } from "./stored-keys.js";
import { partitionScanRanges, type PartitionEntries } from "./partition-order.js";

/**
 * The sorted keys of the iterations (stored-keys.ts): `save`, the folder where each
 * iteration writes its own (a run whose work directory becomes an index, or a batch's
 * --update); `stored` (--against-scan new), an index's, by iteration (undefined where it kept
 * none), with the map of its store indices to the combined store's.
 */
export interface IterationKeys {
  save?: string;
  stored?: { path: (iteration: number) => string | undefined; toCombined: Uint32Array };
}

/** The fresh signatures copied out of the store (in shared memory) with room for their keys: what a batch sorts itself. */
interface FreshKeys {
  index: Uint32Array;
  signatures: Uint32Array;
  hi: Uint32Array;
  lo: Uint32Array;
}

function freshKeys(store: SignatureStore, fresh: Uint8Array): FreshKeys {
  const W = store.words;
  let m = 0;
  for (let i = 0; i < store.count; i++) m += fresh[i];
  const index = new Uint32Array(m);
  const signatures = new Uint32Array(new SharedArrayBuffer(m * W * 4));
  for (let i = 0, k = 0; i < store.count; i++) {
    if (fresh[i] !== 1) continue;
    index[k] = i;
    signatures.set(store.signatures.subarray(i * W, (i + 1) * W), k++ * W);
  }
  return { index, signatures, hi: new Uint32Array(new SharedArrayBuffer(m * 4)), lo: new Uint32Array(new SharedArrayBuffer(m * 4)) };
}

/**
 * Where iterations put the pairs they find: every pair, each at the first iteration that
 * found it (FoundPairs, `--pairs all`), or their spanning forest (`--pairs edges`).
 */
export type PairSink = FoundPairs | SpanningForest;

function ranges(n: number, parts: number): [number, number][] {
  const step = Math.ceil(n / Math.max(1, parts));
  const out: [number, number][] = [];
  for (let from = 0; from < n; from += step) out.push([from, Math.min(n, from + step)]);
  return out;
}

/** Document pairs inside each group of identical signatures: Σ m(m−1)/2. */
export function identicalPairs(store: SignatureStore): number {
  let pairs = 0;
  for (let i = 0; i < store.count; i++) {
    const m = store.offsets[i + 1] - store.offsets[i];
    pairs += (m * (m - 1)) / 2;
  }
  return pairs;
}

/** Signature comparisons of one iteration's one-sided beam scan over n signatures. */
export function comparisonsPerIteration(n: number, beam: number): number {
  let c = 0;
  for (let b = 1; b <= beam; b++) c += Math.max(0, n - b);
  return c;
}

/** What runIterations and scanIterations run: iterations `first`..`last` of `store` on `pool`, their pairs into `sink`. */
export interface IterationRun {
  store: SignatureStore;
  opts: Pick<PlebOptions, "threshold" | "beam" | "shiftCount" | "seed">;
  first: number;
  last: number;
  exec: ExecutionOptions;
  pool: TaskPool<PlebTasks>;
  sink: PairSink;
  onIteration: (iteration: number) => void;
  verifier?: PairVerifier;
  fresh?: Uint8Array;
  keys?: IterationKeys;
  /** `--partition-attr`: the store's (partition, signature) entries; the search is keyed by partition (partition-order.ts). */
  partition?: PartitionEntries;
}

/**
 * PLEB iterations `first`..`last` (1-based, inclusive) of the thesis's `hamming`: sort the
 * signatures by their first 64 bits under the iteration's permutation (the identity
 * followed by (iteration − 1)·shiftCount seeded transpositions), compare each with the next
 * `beam` ones, give the pairs within the Hamming threshold to `sink` in scan order. Key
 * extraction and beam scans run in chunks on the pool; an iteration's pairs depend only on
 * the store and its permutation, never on the number of workers or on which iterations ran
 * before. Into a SpanningForest, pairs already joined when an iteration starts are not
 * compared at all. With a `verifier` (`--verify`) only the pairs whose exact cosine passes
 * reach the sink, so a rejected pair joins nothing. With `fresh` (`--against-scan new`: 1 per
 * signature holding a new document, in shared memory), only the pairs with a fresh member
 * are compared: the full scan's pairs with a fresh member, in its order (beamScan); the
 * prefixes the scan reads are then scattered by position first (SortedPrefixes). A lazy
 * verifier (PairVerifier.require) verifies after the last iteration, offering the pairs in
 * the same order (verifyHeld), so the sink ends the same. With `keys.stored` (and
 * `fresh`), an iteration whose index kept its sorted keys computes and sorts the keys of the
 * fresh signatures only and merges them into the index's (mergeStoredKeys): the same order
 * as sorting all keys, so the same pairs. With `keys.save`, each iteration's sorted keys are
 * written there. With `partition`, each iteration orders the entries by (partition, key) and
 * scans each partition's run apart (partition-order.ts); its keys are neither stored nor
 * merged (an index's stored keys are of the whole store's order). Returns the wall time of
 * each iteration (the deferred verification in the last one's).
 */
export async function runIterations(run: IterationRun): Promise<number[]> {
  const scanned = await scanIterations(run);
  return run.verifier?.lazy ? verifyHeld(scanned, run.first, run.sink, run.verifier) : scanned.seconds;
}

/**
 * The iterations a lazy verifier has not verified yet (scanIterations): each one's wall time,
 * and its candidates, the (i, j, distance) triples of each scan chunk in scan order.
 */
export interface HeldIterations {
  seconds: number[];
  candidates: Uint32Array[][];
}

/**
 * runIterations' loop: with a lazy verifier, the candidates are held back for verifyHeld and
 * `sink` is left as it was (so its labels, the same at every iteration, skip only the pairs it
 * joined before). The scans do not depend on the verification, so the candidates of several
 * groups can be gathered before the vectors they meet are read, in one pass (plebStep).
 */
export async function scanIterations(run: IterationRun): Promise<HeldIterations> {
  const { store, opts, first, last, exec, pool, sink, onIteration, verifier, fresh, partition } = run;
  const keys = partition === undefined ? (run.keys ?? {}) : {};
  const n = store.count;
  const maxDistance = maxDistanceFor(store.words * 32, opts.threshold);
  const labels = sink instanceof SpanningForest ? new Uint32Array(new SharedArrayBuffer(n * 4)) : undefined;
  const seconds: number[] = [];
  const shared = { signatures: store.signatures, words: store.words, seed: opts.seed, shiftCount: opts.shiftCount };
  // A batch over an index that kept its sorted keys sorts only the fresh signatures' keys.
  const merging = keys.stored === undefined || fresh === undefined ? undefined : { path: keys.stored.path, toCombined: oldInCombined(keys.stored.toCombined, fresh), own: freshKeys(store, fresh) };
  const ownRanges = ranges(merging?.own.index.length ?? 0, exec.workers);
  if (keys.save !== undefined) await mkdir(keys.save, { recursive: true });
  const keyRanges = ranges(n, exec.workers);
  const scanRanges = ranges(Math.max(0, n - 1), exec.workers * 4);
  const shared32 = (length: number) => new Uint32Array(new SharedArrayBuffer(length * 4));
  // A batch's scan reads nearly every position (its fresh signatures lie within `beam` of
  // almost all of them): their prefixes are scattered by position (SortedPrefixes), in shared memory.
  const P = prefixWords(store.words, maxDistance);
  // Scattered by store index: one position per signature, so not with partitions (a signature may be an entry of several).
  const sorted: SortedPrefixes | undefined =
    fresh === undefined || partition !== undefined ? undefined : { prefix: shared32(n * P), label: labels === undefined ? undefined : shared32(n), fresh: new Uint8Array(new SharedArrayBuffer(n)) };
  const rank = sorted === undefined ? undefined : shared32(n);
  // Otherwise each scan gathers its positions' prefixes through the order, from a copy of the
  // store's prefixes: a sixth of the store at 1024 bits, so fewer of those reads miss the cache.
  const prefixes = sorted === undefined ? storePrefixes(store.signatures, store.words, P) : undefined;
  // Each iteration's sorted order is one pool task (its keys and their sort: OrderTask). Without
  // an index's keys to merge, the next iteration's runs while this one is scanned (the orders
  // do not depend on the scans), so two sets of buffers take turns.
  const ahead = merging === undefined;
  const slots = Array.from({ length: ahead ? 2 : 1 }, () => ({ hi: shared32(n), lo: shared32(n), order: shared32(partition?.signature.length ?? n), ...(keys.save === undefined ? {} : { sortedHi: shared32(n) }) }));
  const slotOf = (iteration: number) => slots[(iteration - first) % slots.length];
  const orderTask = (iteration: number) => handled(pool.run("order", { ...shared, iteration: iteration - 1, ...slotOf(iteration), ...(partition === undefined ? {} : { entries: partition }) }));
  let next = ahead && n > 1 && first <= last ? orderTask(first) : undefined;
  // The last iteration's keys being written (keys.save): one write in flight, awaited before the next.
  let writing: Promise<void> = Promise.resolve();
  // A lazy verifier reads vectors on demand: the iterations' candidates are gathered first.
  const candidates: Uint32Array[][] = [];
  for (let iteration = first; iteration <= last; iteration++) {
    const t0 = performance.now();
    if (n > 1) {
      const path = merging?.path(iteration);
      const { order } = slotOf(iteration);
      // The keys in sorted order, for keys.save.
      let sortedHi: Uint32Array | undefined;
      if (merging !== undefined && path !== undefined) {
        const { own, toCombined } = merging;
        const ownTask = { ...shared, signatures: own.signatures, iteration: iteration - 1, hi: own.hi, lo: own.lo };
        await Promise.all(ownRanges.map(([from, to]) => pool.run("keys", { ...ownTask, from, to })));
        const perm = BitPermutation.atIteration(store.words * 32, opts.seed, opts.shiftCount, iteration - 1);
        const freshOrder = sortOrder(own.hi, own.lo, own.index.length);
        const old = readSortedKeys(path, toCombined.length);
        sortedHi = new Uint32Array(n);
        const merge = { store: store.signatures, words: store.words, perm, old, toCombined };
        mergeStoredKeys({ ...merge, freshIndex: own.index, freshHi: own.hi, freshLo: own.lo, freshOrder }, order, sortedHi);
      } else {
        await (next ?? orderTask(iteration));
        next = ahead && iteration < last ? orderTask(iteration + 1) : undefined;
        sortedHi = slotOf(iteration).sortedHi;
      }
      if (keys.save !== undefined && sortedHi !== undefined) {
        await writing;
        // writeSortedKeys copies the keys before its first wait: the buffers may be reused.
        writing = handled(writeSortedKeys(join(keys.save, sortedKeysName(iteration)), { hi: sortedHi, order }));
      }
      // Held candidates leave the sink as it was: its labels are those of the first iteration.
      if (labels !== undefined && sink instanceof SpanningForest && (iteration === first || verifier?.lazy !== true)) sink.labelComponents(labels);
      if (sorted !== undefined && rank !== undefined) {
        await Promise.all(keyRanges.map(([from, to]) => pool.run("rank", { order, rank, from, to })));
        const scatter = { signatures: store.signatures, words: store.words, prefixWords: P, rank, sorted, labels, fresh };
        await Promise.all(keyRanges.map(([from, to]) => pool.run("scatter", { ...scatter, from, to })));
      }
      const scan = { signatures: store.signatures, words: store.words, beam: opts.beam, maxDistance, labels, fresh, prefixes };
      const results = await Promise.all(
        partition === undefined
          ? scanRanges.map(([from, to]) => pool.run("scan", { ...scan, order, from, to, sorted }))
          : partitionScanRanges(partition, exec.workers * 4).map(({ start, end, from, to }) => pool.run("scan", { ...scan, order: order.subarray(start, end), from, to })),
      );
      if (verifier?.lazy) candidates[iteration - first] = results;
      else for (const triples of results) sink.addTriples(verifier === undefined ? triples : verifier.filter(triples), iteration);
    }
    seconds.push(secondsSince(t0));
    onIteration(iteration);
  }
  await writing;
  return { seconds, candidates };
}

/** `promise`, with its rejection marked as handled: it may be left unawaited when an earlier step fails. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** The store indices of the two members of (i, j, distance) triples (to PairVerifier.require). */
export function tripleEnds(triples: Uint32Array): Uint32Array {
  const ends = new Uint32Array((2 * triples.length) / 3);
  for (let k = 0, e = 0; k < triples.length; k += 3) {
    ends[e++] = triples[k];
    ends[e++] = triples[k + 1];
  }
  return ends;
}

/** The store indices of the held candidates' two members (to PairVerifier.require). */
export function candidateEnds(held: HeldIterations): Uint32Array[] {
  return held.candidates.flatMap((results) => results.map(tripleEnds));
}

/**
 * Verifies the held candidates of iterations `first`… and offers those that pass to `sink`
 * in order, as the iterations would have: a SpanningForest drops a pair already joined
 * whatever its cosine, so such a pair is not verified. The vectors of all candidates not
 * read yet are read first, in one pass. Returns the iterations' seconds, the last one's
 * with the verification's.
 */
export async function verifyHeld(held: HeldIterations, first: number, sink: PairSink, verifier: PairVerifier): Promise<number[]> {
  const t0 = performance.now();
  await verifier.require(...candidateEnds(held));
  held.candidates.forEach((results, k) => {
    for (const triples of results) {
      for (let p = 0; p < triples.length; p += 3) {
        const [i, j, d] = [triples[p], triples[p + 1], triples[p + 2]];
        if (sink instanceof SpanningForest && sink.joined(i, j)) continue;
        if (verifier.accepts(i, j)) sink.add(i, j, d, first + k);
      }
    }
  });
  const seconds = [...held.seconds];
  seconds[seconds.length - 1] = Number((seconds[seconds.length - 1] + (performance.now() - t0) / 1000).toFixed(3));
  return seconds;
}
