import type { FeatureOptions } from "../../src/methods/method-options.js";
import type { ChunkTask, ShardBase } from "../../src/methods/shard-scan.js";
import { collectChunks } from "../helpers/vert.js";

export const FEATURES: FeatureOptions = {
  column: 0,
  idAttr: "id",
  lowercase: true,
  keepNumbers: false,
  shingleSize: 5,
  numPerm: 128,
  bands: 17,
  rows: 7,
  seed: 1,
  shortTokens: 9,
};

/** Runs a chunk task over every chunk of the inputs in this thread (no pool). */
export async function shardsOf<S extends ShardBase>(
  inputs: string[],
  task: (t: ChunkTask) => S | Promise<S>,
  options: Partial<FeatureOptions> = {},
  workdir = "/nonexistent",
  chunkBytes = 1 << 14,
): Promise<S[]> {
  const out: S[] = [];
  for (const chunk of await collectChunks(inputs, chunkBytes)) out.push(await task({ workdir, chunk, options: { ...FEATURES, ...options } }));
  return out;
}

/** Pairs a < b of a PairList-like result, as "a:b=sim" strings (sorted) for comparisons. */
export function pairStrings(keys: Float64Array, documents: number, sim: (a: number, b: number) => number): string[] {
  return Array.from(keys, (k) => {
    const a = Math.floor(k / documents);
    const b = k - a * documents;
    return `${a}:${b}=${sim(a, b).toFixed(6)}`;
  });
}

/** All pairs a < b over n documents whose `measure` passes `keep`, as pairStrings does. */
export function brutePairs(n: number, measure: (a: number, b: number) => number | null, keep: (m: number) => boolean): string[] {
  const out: string[] = [];
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      const m = measure(a, b);
      if (m !== null && keep(m)) out.push(`${a}:${b}=${m.toFixed(6)}`);
    }
  }
  return out;
}

/** A corpus of random documents and near copies (a few tokens changed, paragraphs dropped). */
export function nearDuplicateCorpus(docs: number, seed: number, vocabulary = 60): string {
  let s = seed >>> 0;
  const r = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const word = () => `w${Math.floor(r() * vocabulary)}`;
  const originals: string[][][] = [];
  const lines: string[] = [];
  for (let d = 0; d < docs; d++) {
    let paras: string[][];
    if (originals.length > 0 && r() < 0.4) {
      const src = originals[Math.floor(r() * originals.length)];
      paras = src.filter(() => r() > 0.15).map((p) => p.map((w) => (r() < 0.03 ? word() : w)));
      if (paras.length === 0) paras = [src[0]];
    } else {
      paras = Array.from({ length: 1 + Math.floor(r() * 4) }, () => Array.from({ length: 3 + Math.floor(r() * 20) }, word));
      originals.push(paras);
    }
    lines.push(`<doc id="r${d}">`);
    for (const p of paras) lines.push("<p>", ...p.flatMap((w) => (r() < 0.05 ? [w, "<g/>", ","] : [w])), "</p>");
    lines.push("</doc>");
  }
  return lines.join("\n") + "\n";
}
