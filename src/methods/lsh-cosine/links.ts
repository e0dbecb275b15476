import { existsSync } from "node:fs";
import { linksFile } from "../../workdir/layout.js";
import type { PlebOptions } from "../../core/options.js";
import { signatureOfDocument } from "../../output/pairs.js";
import type { PairColumns } from "../../pleb/spanning-forest.js";
import { readRunFileSync, writeRunFile } from "../../util/run-file.js";
import type { SignatureStore } from "../../runs/signature-store.js";

/**
 * The signature pairs a PLEB run kept (its spanning forest, or every pair with `--pairs all`),
 * named by the leading documents of the two signatures (a signature's first document, whose
 * ordinal no later batch changes) instead of store indices (which shift as batches add
 * signatures), with the search that found them. An index keeps them so that a batch searched
 * with `--against-scan new` takes the old documents' links from it instead of searching them again.
 */
export interface RunLinks {
  a: Uint32Array;
  b: Uint32Array;
  distance: Uint32Array;
  /** searchKey of the run that found them. */
  search: string;
}

/**
 * What decides which pairs PLEB finds in a store: two runs with the same key find the same
 * pairs among the same signatures. `iterations`: those that ran (a `--target-recall` run may
 * stop early).
 */
export function searchKey(options: PlebOptions, iterations: number): string {
  const { threshold, beam, shiftCount, seed, cosineThreshold } = options;
  return JSON.stringify({ threshold, beam, shiftCount, seed, iterations, cosineThreshold: cosineThreshold ?? null });
}

/** Writes a run's kept pairs (store indices of `store`) as its links file in `workdir`. */
export async function writeRunLinks(workdir: string, store: SignatureStore, kept: PairColumns, search: string): Promise<void> {
  const leader = (i: number) => store.docs[store.offsets[i]];
  const links: RunLinks = { a: kept.i.map(leader), b: kept.j.map(leader), distance: kept.distance, search };
  await writeRunFile(linksFile(workdir), [links]);
}

export function readRunLinks(path: string): RunLinks | undefined {
  return existsSync(path) ? readRunFileSync<RunLinks>(path)[0] : undefined;
}

/** Links as pairs of `store` (whose documents include theirs at the same ordinals), at iteration 0: found before the run. */
export function linksInStore(links: RunLinks, store: SignatureStore, documents: number): PairColumns {
  const sigOf = signatureOfDocument(store, documents);
  const n = links.a.length;
  const out = { i: new Uint32Array(n), j: new Uint32Array(n), distance: links.distance.slice(), iteration: new Uint32Array(n) };
  for (let k = 0; k < n; k++) {
    const x = sigOf[links.a[k]];
    const y = sigOf[links.b[k]];
    out.i[k] = Math.min(x, y);
    out.j[k] = Math.max(x, y);
  }
  return out;
}
