import type { FeatureOptions } from "../../src/core/method-options.js";
import type { ChunkTask, ShardBase } from "../../src/methods/sets/shard-scan.js";
import { NO_DOC, type DuplicateGraph } from "../../src/clusters/duplicate-graph.js";
import { UnionFind } from "../../src/util/union-find.js";
import { collectChunks } from "../helpers/vert.js";

export const FEATURES: FeatureOptions = {
  column: 0,
  idAttr: "id",
  normalize: "nfc" as const, lowercase: true,
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

/** The edges of a graph as "a:b=sim" strings, as brutePairs gives them. */
export function edgeStrings(graph: DuplicateGraph): string[] {
  return Array.from({ length: graph.edges.length }, (_, k) => `${graph.edges.a(k)}:${graph.edges.b(k)}=${graph.edges.similarity(k).toFixed(6)}`);
}

/** Each document's cluster as its smallest member (itself when alone): the graph's components. */
export function graphClusters(graph: DuplicateGraph): number[] {
  const sets = new UnionFind(graph.documents);
  graph.firstOf.forEach((f, d) => f !== NO_DOC && sets.union(f, d));
  for (let k = 0; k < graph.edges.length; k++) sets.union(graph.edges.a(k), graph.edges.b(k));
  return smallestMembers(sets, graph.documents);
}

/** `graphClusters` of the brute-force union of every pair a < b that `similar` accepts. */
export function bruteClusters(n: number, similar: (a: number, b: number) => boolean): number[] {
  const sets = new UnionFind(n);
  for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) if (similar(a, b)) sets.union(a, b);
  return smallestMembers(sets, n);
}

/**
 * `bruteClusters` over the graph's identity groups and every pair of its leaders that
 * `similar` accepts (for corpora of many copies of few distinct documents).
 */
export function bruteLeaderClusters(graph: DuplicateGraph, similar: (a: number, b: number) => boolean): number[] {
  const sets = new UnionFind(graph.documents);
  graph.firstOf.forEach((f, d) => f !== NO_DOC && sets.union(f, d));
  const leaders = [...leaderSet(graph)];
  for (let p = 0; p < leaders.length; p++) for (let q = p + 1; q < leaders.length; q++) if (similar(leaders[p], leaders[q])) sets.union(leaders[p], leaders[q]);
  return smallestMembers(sets, graph.documents);
}

/** `firstOf` by a string key of each document's features (null: none), through a Map. */
export function firstOfByKey(keys: (string | null)[]): number[] {
  const first = new Map<string, number>();
  return keys.map((k, d) => {
    if (k === null) return NO_DOC;
    if (!first.has(k)) first.set(k, d);
    return first.get(k) as number;
  });
}

function smallestMembers(sets: UnionFind, n: number): number[] {
  const smallest = new Int32Array(n).fill(-1);
  for (let d = 0; d < n; d++) if (smallest[sets.find(d)] < 0) smallest[sets.find(d)] = d;
  return Array.from({ length: n }, (_, d) => smallest[sets.find(d)]);
}

/** Brute-force `firstOf`: the first document whose features `same` finds equal (NO_DOC without features). */
export function bruteFirstOf(n: number, featured: (d: number) => boolean, same: (a: number, b: number) => boolean): number[] {
  return Array.from({ length: n }, (_, d) => {
    if (!featured(d)) return NO_DOC;
    for (let e = 0; e < d; e++) if (featured(e) && same(e, d)) return e;
    return d;
  });
}

/** Group leaders of a graph. */
export function leaderSet(graph: DuplicateGraph): Set<number> {
  return new Set(Array.from(graph.firstOf).filter((f, d) => f === d));
}

/** All pairs a < b over n documents (those `among` accepts) whose `measure` passes `keep`, as "a:b=m" strings. */
export function brutePairs(n: number, measure: (a: number, b: number) => number | null, keep: (m: number) => boolean, among = (_d: number) => true): string[] {
  const out: string[] = [];
  for (let a = 0; a < n; a++) {
    if (!among(a)) continue;
    for (let b = a + 1; b < n; b++) {
      if (!among(b)) continue;
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

/**
 * `copies` near copies of one page of eight 3-word paragraphs after a header paragraph that
 * names one of `sites` sites (`<doc id="c{i}">`: `sites` distinct documents, each copied many
 * times), and every `every`-th document an unrelated one (`u{i}`). Read with shortTokens ≤ 3
 * for paragraphs and shingles of ≤ 3 words for minhash, copies of different sites are similar
 * under every method but exact.
 */
export function headerCopiesCorpus(copies: number, sites = 300, every = 10): string {
  const paragraph = (words: string[]) => ["<p>", ...words, "</p>"].join("\n");
  const body = Array.from({ length: 8 }, (_, p) => paragraph([`body${p}a`, `body${p}b`, `body${p}c`])).join("\n");
  const out: string[] = [];
  for (let i = 0; i < copies; i++) {
    out.push(`<doc id="c${i}">\n${paragraph([`site${i % sites}`, "posted", "here"])}\n${body}\n</doc>`);
    if (i % every === 0) out.push(`<doc id="u${i}">\n${paragraph(Array.from({ length: 20 }, (_, k) => `u${i}w${k}`))}\n</doc>`);
  }
  return out.join("\n") + "\n";
}
