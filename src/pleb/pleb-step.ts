import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_ITERATIONS_PER_GROUP, type ExecutionOptions, type PlebOptions } from "../core/options.js";
import { beamScanKernelStatus } from "./beam-scan-wasm.js";
import { FoundPairs } from "./found-pairs.js";
import { PairVerifier } from "./pair-verifier.js";
import { candidateEnds, runIterations, scanIterations, verifyHeld, type HeldIterations, type IterationKeys, type PairSink } from "./run-pleb.js";
import type { Proportion } from "../util/binomial-interval.js";
import { SpanningForest, type PairColumns } from "./spanning-forest.js";
import type { PartitionEntries } from "./partition-order.js";
import { readRunFileSync, writeRunFile } from "../util/run-file.js";
import type { SignatureStore } from "../runs/signature-store.js";
import type { TaskPool } from "../executor/in-process-pool.js";
import type { PlebTasks } from "./pleb-entry.js";
import { readPrepareManifest } from "../features/prepare-manifest.js";
import type { Reporter } from "../executor/progress.js";
import { inSlice, markerFile, writeMarker, type Slice } from "../workdir/layout.js";
import { TaskRunner } from "../executor/tasks.js";
import type { ShardStats } from "../features/count-shard.js";
import { requireShardMarkers } from "../workdir/require.js";
import { readJsonFileSync, WORKDIR_ADVICE } from "../util/json-file.js";

/**
 * How the PLEB iterations of one set of options are cut into groups, and where their
 * results go: `pleb/<fingerprint of the options>/`, so that pleb can run again on the same
 * work directory with other settings without mixing results.
 */
export interface PlebPlan {
  options: PlebOptions;
  iterationsPerGroup: number;
  groups: number;
  fingerprint: string;
  dir: string;
  /**
   * Keep every pair found, whatever `--pairs` (a run with `--partition-attr`): the outputs drop
   * the pairs across partitions, and a spanning forest may have joined two signatures of one
   * partition only through a signature of another (one signature may be in several partitions).
   */
  keepAll?: true;
}

export function plebPlan(workdir: string, options: PlebOptions, iterationsPerGroup = DEFAULT_ITERATIONS_PER_GROUP, keepAll = false): PlebPlan {
  const fingerprint = createHash("sha256")
    // byPartition: a partitioned run's groups of 0.7.0, searched over all signatures, are not resumed as the keyed search's.
    .update(JSON.stringify(keepAll ? { options, iterationsPerGroup, keepAll, byPartition: true } : { options, iterationsPerGroup }))
    .digest("hex")
    .slice(0, 16);
  return {
    ...(keepAll ? { keepAll: true as const } : {}),
    options,
    iterationsPerGroup,
    groups: Math.ceil(options.iterations / iterationsPerGroup),
    fingerprint,
    dir: join(workdir, "pleb", fingerprint),
  };
}

/** Phase name of a plan's timing markers: runs with other settings keep their own. */
export function plebPhaseName(plan: PlebPlan): string {
  return `pleb-${plan.fingerprint}`;
}

function groupTask(plan: PlebPlan, group: number): string {
  return `pleb-${plan.fingerprint}-group-${String(group).padStart(4, "0")}`;
}

function groupFile(plan: PlebPlan, group: number): string {
  return join(plan.dir, `group-${String(group).padStart(4, "0")}.zst`);
}

/** Iterations of a group, 1-based and inclusive. */
function groupIterations(plan: PlebPlan, group: number): [number, number] {
  const first = group * plan.iterationsPerGroup + 1;
  return [first, Math.min(plan.options.iterations, first + plan.iterationsPerGroup - 1)];
}

/** A group file: its pairs (`--pairs edges`: its spanning forest, in order), times and verified candidates. */
interface GroupRecord extends PairColumns {
  seconds: Float64Array;
  /** `--verify`: candidates checked against their exact cosine, and those rejected. */
  checked?: number;
  rejected?: number;
}

/**
 * `--verify`'s verifier of a plan, or undefined under `--no-verify`: the vectors of its work
 * directory, read when candidates need them (PairVerifier.open; on `pool` if given).
 */
export async function planVerifier(workdir: string, store: SignatureStore, plan: PlebPlan, pool?: TaskPool<PlebTasks>): Promise<PairVerifier | undefined> {
  const threshold = plan.options.cosineThreshold;
  if (threshold === undefined) return undefined;
  const prepared = await readPrepareManifest(workdir);
  const counted = await requireShardMarkers<ShardStats>(workdir, "count", prepared.counts.shards);
  return PairVerifier.open(workdir, prepared, store, threshold, counted.map((s) => s.docs), pool);
}

/** The container of a plan's pairs: every pair, or their spanning forest (O(signatures)). */
function pairSink(plan: PlebPlan, store: SignatureStore): PairSink {
  return plan.options.pairs === "all" || plan.keepAll === true ? new FoundPairs(Math.max(store.count, 1)) : new SpanningForest(store.count);
}

/**
 * `--against-scan new`: the signatures holding a new document (1 each, in shared memory),
 * whose pairs alone are searched, and the pairs the index already links (iteration 0),
 * which stand for the old documents' pairs; `keys`, the index's sorted keys, where it kept them.
 */
export interface ScanScope {
  fresh: Uint8Array;
  links: PairColumns;
  keys?: IterationKeys["stored"];
}

/** The pairs of `c` found by the iterations (iteration ≥ 1), without the links a scope gave. */
function foundByIterations(c: PairColumns): PairColumns {
  const keep = (_: number, k: number) => c.iteration[k] > 0;
  return { i: c.i.filter(keep), j: c.j.filter(keep), distance: c.distance.filter(keep), iteration: c.iteration.filter(keep) };
}

/** Forgets the groups of a plan done earlier: its files, its markers and its timings. */
export async function resetPlan(workdir: string, plan: PlebPlan): Promise<void> {
  await rm(plan.dir, { recursive: true, force: true });
  const markers = join(workdir, "markers");
  if (!existsSync(markers)) return;
  for (const name of await readdir(markers)) {
    if (name.startsWith(`pleb-${plan.fingerprint}-`) || name.startsWith(`time-${plebPhaseName(plan)}-`)) await rm(join(markers, name), { force: true });
  }
}

/** The sampled recall that PLEB updates as groups finish (eval/sample-recall.ts). */
export interface RecallEstimate {
  addColumns(columns: Pick<PairColumns, "i" | "j">): void;
  estimate(): Proportion;
}

/** Draws the sampled recall from the first group's pairs (its strata). */
export type RecallSampler<R extends RecallEstimate> = (firstGroup: Pick<PairColumns, "i" | "j">) => Promise<R>;

/** How a slice of PLEB runs (plebStep): on what, and what a sample, an index or `--against` adds. */
export interface PlebRun<R extends RecallEstimate> {
  exec: ExecutionOptions;
  pool: TaskPool<PlebTasks>;
  reporter: Reporter;
  /** `--estimate-recall`, `--target-recall`: the sampled recall, drawn from the first group's pairs. */
  recallOf?: RecallSampler<R>;
  /** The plan's verifier (planVerifier), loaded here when not given. */
  verifier?: PairVerifier;
  /** `--against-scan new`: the indices' links and the fresh signatures. */
  scope?: ScanScope;
  /** The folder where each iteration writes its sorted keys (an index in the making, or --update). */
  saveKeys?: string;
  /** `--partition-attr`: the store's entries by partition, to which the search is keyed (partition-order.ts). */
  partition?: PartitionEntries;
}

/**
 * Runs the iteration groups of one slice that are not done yet, one after the other (each
 * uses the whole pool), as tasks of the executor (TaskRunner): each writes its file, the
 * executor its marker. With `recallOf` (`--estimate-recall`, `--target-recall`), the sampled
 * recall is built from the slice's first group's pairs (its stratified design's strata) and
 * returned; with `--target-recall`, each group's pairs update it, and the first group after
 * which its lower bound reaches the target is the last (a stop marker says so). The decision
 * depends only on whole groups' pairs, so it is the same whatever the workers, and a resumed
 * run replays the groups done to reach it. `verifier`: the plan's (planVerifier), loaded here
 * when not given. With a `scope`, each group starts from the scope's links (so that pairs they
 * join are not compared) and searches only pairs with a fresh signature; its file holds only
 * the pairs its iterations found. `saveKeys`: the folder where each iteration writes its sorted
 * keys (a run whose work directory becomes an index, or --update).
 */
export async function plebStep<R extends RecallEstimate>(workdir: string, store: SignatureStore, plan: PlebPlan, slice: Slice, run: PlebRun<R>): Promise<R | undefined> {
  const { exec, pool, reporter, recallOf, verifier, scope, saveKeys, partition } = run;
  await mkdir(plan.dir, { recursive: true });
  // A fallback of the beam scan's kernel is told here, before the iterations (the manifest records it: outputStep).
  beamScanKernelStatus((m) => reporter.info(m));
  const stopAt = recallOf === undefined ? undefined : plan.options.targetRecall;
  const groups = Array.from({ length: plan.groups }, (_, g) => g).filter((g) => inSlice(g, slice));
  // A done group's pairs are needed again only for the sampled recall: the first group's for
  // its strata, every group's for --target-recall.
  const needsRecord = (g: number) => stopAt !== undefined || (recallOf !== undefined && g === groups[0]);
  let recall: R | undefined;
  const progress = reporter.progress("pleb", "iterations", plan.options.iterations);
  const size = (g: number) => groupIterations(plan, g)[1] - groupIterations(plan, g)[0] + 1;
  let done = plan.options.iterations - groups.reduce((n, g) => n + size(g), 0);
  // Opened only when a group is left: a slice with every group done needs no vectors.
  const left = groups.some((g) => !existsSync(markerFile(workdir, groupTask(plan, g))));
  const v = verifier ?? (left ? await planVerifier(workdir, store, plan, pool) : undefined);
  const keys = { save: saveKeys, stored: scope?.keys };
  const onIteration = () => progress.update(++done);
  const scopeSink = () => {
    const sink = pairSink(plan, store);
    if (scope !== undefined) sink.addColumns(scope.links);
    return sink;
  };
  // With --target-recall, the groups after the first may not run: they are not scanned ahead.
  const ahead = stopAt === undefined ? groups : groups.slice(0, 1);
  const held = await scanForLazyVerifier(workdir, store, plan, ahead, exec, pool, scopeSink, onIteration, v, scope, keys, partition);
  const runner = new TaskRunner<GroupResult>(workdir);
  for (const g of groups) {
    const [first, last] = groupIterations(plan, g);
    const { result } = await runner.add({
      marker: groupTask(plan, g),
      start: async () => {
        const sink = scopeSink();
        const [checked, rejected] = [v?.checked ?? 0, v?.rejected ?? 0];
        const scanned = held.get(g);
        const seconds =
          scanned === undefined || v === undefined
            ? await runIterations({ store, opts: plan.options, first, last, exec, pool, sink, onIteration, verifier: v, fresh: scope?.fresh, keys, partition })
            : await verifyHeld(scanned, first, sink, v);
        const verified = v === undefined ? {} : { checked: v.checked - checked, rejected: v.rejected - rejected };
        const pairs = scope === undefined ? sink.toColumns() : foundByIterations(sink.toColumns());
        const record: GroupRecord = { ...pairs, seconds: Float64Array.from(seconds), ...verified };
        await writeRunFile(groupFile(plan, g), [record]);
        return { result: Promise.resolve({ pairs: record.i.length, record }) };
      },
      load: async () => (progress.update((done += size(g))), needsRecord(g) ? { record: readGroup(plan, g) } : {}),
      stats: (r) => ({ first, last, pairs: r.pairs }),
    });
    if (recallOf === undefined || !needsRecord(g)) continue;
    const record = (await result).record as GroupRecord;
    recall ??= await recallOf(record);
    if (stopAt === undefined) continue;
    recall.addColumns(record);
    if (recall.estimate().low >= stopAt) {
      await writeMarker(workdir, stopTask(plan), { group: g, iteration: last });
      break;
    }
  }
  await runner.results();
  progress.finish();
  return recall;
}

/**
 * Candidate triples (12 bytes each) held before verification: past this, the groups left run
 * as before, verified one at a time.
 */
const HELD_CANDIDATE_BYTES = 256 * 2 ** 20;

/**
 * With a lazy verifier (`--against-scan new`), the groups of `groups` not done yet scanned
 * before any is verified, and the vectors all their candidates meet read in one pass: each
 * pass reads every counts file of the index holding one of them, nearly all of them, so one
 * pass instead of one per group. A lazy verifier's scans do not depend on the verification
 * (scanIterations), so each group is then verified (verifyHeld) into the same pairs. The
 * scans skip only the pairs joined before them, so a batch with a large cluster of new near
 * copies meets it again at every iteration: once HELD_CANDIDATE_BYTES are held (30,000 near
 * copies: 3.3 GB held over 100 iterations), the later groups are left to run one by one after
 * the held ones are verified, and skip what those joined. The reading's time is counted in
 * the first group's last iteration. Empty without a lazy verifier.
 */
async function scanForLazyVerifier(
  workdir: string,
  store: SignatureStore,
  plan: PlebPlan,
  groups: number[],
  exec: ExecutionOptions,
  pool: TaskPool<PlebTasks>,
  scopeSink: () => PairSink,
  onIteration: () => void,
  verifier: PairVerifier | undefined,
  scope: ScanScope | undefined,
  keys: IterationKeys,
  partition: PartitionEntries | undefined,
): Promise<Map<number, HeldIterations>> {
  const held = new Map<number, HeldIterations>();
  if (verifier?.lazy !== true) return held;
  let bytes = 0;
  for (const g of groups) {
    if (bytes > HELD_CANDIDATE_BYTES) break;
    if (existsSync(markerFile(workdir, groupTask(plan, g)))) continue;
    const [first, last] = groupIterations(plan, g);
    const scanned = await scanIterations({ store, opts: plan.options, first, last, exec, pool, sink: scopeSink(), onIteration, verifier, fresh: scope?.fresh, keys, partition });
    held.set(g, scanned);
    for (const results of scanned.candidates) for (const triples of results) bytes += triples.byteLength;
  }
  const t0 = performance.now();
  await verifier.require(...[...held.values()].flatMap(candidateEnds));
  const firstHeld = held.values().next();
  if (firstHeld.done !== true) {
    const { seconds } = firstHeld.value;
    seconds[seconds.length - 1] = Number((seconds[seconds.length - 1] + (performance.now() - t0) / 1000).toFixed(3));
  }
  return held;
}

/** A group as it ran (its pairs for the marker) or as the executor loaded it (its record only when needed). */
interface GroupResult {
  pairs?: number;
  record?: GroupRecord;
}

function stopTask(plan: PlebPlan): string {
  return `pleb-${plan.fingerprint}-stop`;
}

function readGroup(plan: PlebPlan, group: number): GroupRecord {
  return readRunFileSync<GroupRecord>(groupFile(plan, group))[0];
}

/** The pairs of a plan's first iteration group (done): the strata of PLEB's stratified recall sample. */
export function firstGroupPairs(plan: PlebPlan): PairColumns {
  return readGroup(plan, 0);
}

/** The groups a plan runs: all of them, or those up to the one after which `--target-recall` was reached. */
export function groupsRun(workdir: string, plan: PlebPlan): number {
  const stop = markerFile(workdir, stopTask(plan));
  return existsSync(stop) ? readJsonFileSync<{ group: number }>(stop, WORKDIR_ADVICE).group + 1 : plan.groups;
}

/**
 * The groups' pairs together and every iteration's time: the union of their pairs (each at
 * its first iteration), or, for `--pairs edges`, the spanning forest of their forests taken
 * in group order — the forest of all pairs found (SpanningForest). `links` (a ScanScope's)
 * come first, as pairs found before the first iteration.
 */
export function collectGroups(
  workdir: string,
  store: SignatureStore,
  plan: PlebPlan,
  onGroup?: (record: PairColumns, lastIteration: number) => void,
  links?: PairColumns,
): { found: PairSink; seconds: number[]; checked: number; rejected: number } | { missing: number[] } {
  const groups = groupsRun(workdir, plan);
  const missing: number[] = [];
  for (let g = 0; g < groups; g++) if (!existsSync(markerFile(workdir, groupTask(plan, g)))) missing.push(g);
  if (missing.length > 0) return { missing };
  const found = pairSink(plan, store);
  if (links !== undefined) found.addColumns(links);
  const seconds: number[] = [];
  let checked = 0;
  let rejected = 0;
  for (let g = 0; g < groups; g++) {
    const record = readGroup(plan, g);
    found.addColumns(record);
    seconds.push(...record.seconds);
    checked += record.checked ?? 0;
    rejected += record.rejected ?? 0;
    onGroup?.(record, groupIterations(plan, g)[1]);
  }
  return { found, seconds, checked, rejected };
}
