/**
 * Writes a prepared work directory of synthetic signatures, for benchmarking PLEB alone at a
 * chosen scale without generating and preparing a corpus.
 *
 *   node dist/scripts/synth-store.js -w work/ [--signatures 644566] [--bits 1024]
 *       [--planted 24306] [--max-flips 40] [--seed 1]
 *
 * `--signatures` distinct signatures, of which `--planted` are near copies of an earlier
 * one (uniform source) with k ∈ [1, max-flips] distinct bits flipped, the rest uniform random
 * bits (two random 1024-bit signatures differ in ≈ 512 ± 16 bits, like unrelated documents).
 * The defaults are the thesis's timing workload: 644,566 signatures of 1024 bits and its
 * 24,306 findable pairs at threshold 0.95 (≤ 51 differing bits). One document per signature,
 * named s<k>; the truth file (work/truth.tsv, `copy_id source_id edit_rate`) gives k/bits as
 * the edit rate. The directory has what `vertdup pleb -w` reads: prepare.json, the store
 * (signatures sorted, as prepare leaves them) and one shard of document ids.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_PREPARE } from "../src/core/options.js";
import { encodeRecords } from "../src/util/run-file.js";
import { createWorkdir, shardFile, storeFiles } from "../src/workdir/layout.js";
import { PREPARE_MANIFEST, type PrepareManifest } from "../src/features/prepare-manifest.js";
import { emptyWarnings } from "../src/corpus/vertical.js";
import { packageVersion } from "../src/util/package-info.js";
import { Random } from "./bench/random.js";

export interface SynthOptions {
  signatures: number;
  bits: number;
  planted: number;
  maxFlips: number;
  seed: number;
}

export const DEFAULT_SYNTH: SynthOptions = { signatures: 644_566, bits: 1024, planted: 24_306, maxFlips: 40, seed: 1 };

/** Signatures in document order (n × W words) and the planted (copy, source, flips) triples. */
function drawSignatures(o: SynthOptions): { sigs: Uint32Array; truth: [number, number, number][] } {
  const W = o.bits / 32;
  const random = new Random(o.seed, 11);
  const sigs = new Uint32Array(o.signatures * W);
  const copy = new Uint8Array(o.signatures);
  // Which documents are copies: `planted` distinct positions ≥ 1, each copying an earlier one.
  let marked = 0;
  while (marked < Math.min(o.planted, o.signatures - 1)) {
    const k = 1 + random.below(o.signatures - 1);
    if (copy[k] === 0) {
      copy[k] = 1;
      marked++;
    }
  }
  const truth: [number, number, number][] = [];
  const flipped = new Set<number>();
  for (let d = 0; d < o.signatures; d++) {
    if (copy[d] === 0) {
      for (let w = 0; w < W; w++) sigs[d * W + w] = random.uint32();
      continue;
    }
    const source = random.below(d);
    sigs.copyWithin(d * W, source * W, (source + 1) * W);
    const flips = 1 + random.below(o.maxFlips);
    flipped.clear();
    while (flipped.size < flips) flipped.add(random.below(o.bits));
    for (const b of flipped) sigs[d * W + (b >>> 5)] ^= 1 << (b & 31);
    truth.push([d, source, flips]);
  }
  return { sigs, truth };
}

/** Store indices in lexicographic order of the signatures (unsigned words), then by document. */
function sortedOrder(sigs: Uint32Array, n: number, W: number): Uint32Array {
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  return order.sort((a, b) => {
    for (let w = 0; w < W; w++) {
      const x = sigs[a * W + w];
      const y = sigs[b * W + w];
      if (x !== y) return x < y ? -1 : 1;
    }
    return a - b;
  });
}

export async function synthesizeStore(workdir: string, o: SynthOptions): Promise<void> {
  const W = o.bits / 32;
  const n = o.signatures;
  const { sigs, truth } = drawSignatures(o);
  const order = sortedOrder(sigs, n, W);
  const store = new Uint32Array(n * W);
  for (let i = 0; i < n; i++) store.set(sigs.subarray(order[i] * W, (order[i] + 1) * W), i * W);
  await createWorkdir(workdir);
  const files = storeFiles(workdir);
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i <= n; i++) offsets[i] = i;
  writeFileSync(files.signatures, store);
  writeFileSync(files.offsets, offsets);
  writeFileSync(files.docs, order);
  const ids = Array.from({ length: n }, (_, d) => `s${d}`);
  writeFileSync(shardFile(workdir, 0, "docs"), encodeRecords([{ ids, tokens: new Uint32Array(n) }], 1));
  writeFileSync(join(workdir, "truth.tsv"), "copy_id\tsource_id\tedit_rate\n" + truth.map(([c, s, f]) => `s${c}\ts${s}\t${f / o.bits}\n`).join(""));
  const manifest: PrepareManifest = {
    version: packageVersion(),
    inputs: [`synthetic:${n}`],
    options: { ...DEFAULT_PREPARE, bits: o.bits, seed: o.seed },
    counts: { shards: 1, documents: n, tokens: 0, keptTokens: 0, terms: 0, keptTerms: 0, emptyDocuments: 0, signedDocuments: n, distinctSignatures: n },
    warnings: emptyWarnings(),
    phases: {},
  };
  writeFileSync(join(workdir, PREPARE_MANIFEST), JSON.stringify(manifest, null, 2) + "\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      workdir: { type: "string", short: "w" },
      signatures: { type: "string" },
      bits: { type: "string" },
      planted: { type: "string" },
      "max-flips": { type: "string" },
      seed: { type: "string" },
    },
  });
  if (values.workdir === undefined) throw new Error("usage: synth-store -w workdir [--signatures N] …");
  const num = (v: string | undefined, d: number) => (v === undefined ? d : Number(v));
  const o: SynthOptions = {
    signatures: num(values.signatures, DEFAULT_SYNTH.signatures),
    bits: num(values.bits, DEFAULT_SYNTH.bits),
    planted: num(values.planted, DEFAULT_SYNTH.planted),
    maxFlips: num(values["max-flips"], DEFAULT_SYNTH.maxFlips),
    seed: num(values.seed, DEFAULT_SYNTH.seed),
  };
  mkdirSync(values.workdir, { recursive: true });
  await synthesizeStore(values.workdir, o);
  process.stderr.write(`${o.signatures} signatures (${o.planted} planted near copies) → ${values.workdir}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
