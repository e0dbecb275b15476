import { describe, expect, it } from "vitest";
import { UnionFind } from "../../src/util/union-find.js";
import { sampleDocuments } from "../../src/eval/document-sample.js";
import { drawStratified, stratifiedDesign } from "../../src/eval/stratified-sample.js";
import { firstGroupClusters, partitionUnits, SampleRecall } from "../../src/eval/sample-recall.js";
import type { SignatureStore } from "../../src/runs/signature-store.js";
import { Sfc32 } from "../../src/sketch/random-vectors.js";

/**
 * A PLEB run in miniature: 5,000 signatures, one in ten carrying two documents (identical
 * signatures); a quarter of them in near-duplicate groups of 2–13 signatures whose every pair
 * is a reference pair (hamming-full). The first iteration group links each group's members
 * in a chain with probability 0.6 per link; the second adds each missing link with
 * probability 0.5 (so some pairs are found only transitively, some never).
 */
function run() {
  const random = new Sfc32(11, 2);
  const uniform = () => random.nextUint32() / 2 ** 32;
  const signatures = 5000;
  const offsets = new Uint32Array(signatures + 1);
  for (let s = 0; s < signatures; s++) offsets[s + 1] = offsets[s] + (uniform() < 0.1 ? 2 : 1);
  const docs = Uint32Array.from({ length: offsets[signatures] }, (_, d) => d);
  const store: SignatureStore = { words: 2, count: signatures, signatures: new Uint32Array(signatures * 2), offsets, docs };
  const reference: [number, number][] = [];
  const groups: [number, number][][] = [[], []];
  let s = 0;
  while (s < signatures / 4) {
    let size = 2;
    while (uniform() < 0.6 && size < 13) size++;
    const members = Array.from({ length: Math.min(size, signatures / 4 - s) }, () => s++);
    for (let a = 0; a < members.length; a++) for (let b = a + 1; b < members.length; b++) reference.push([members[a], members[b]]);
    for (let k = 1; k < members.length; k++) {
      const link: [number, number] = [members[k - 1], members[k]];
      if (uniform() < 0.6) groups[0].push(link);
      else if (uniform() < 0.5) groups[1].push(link);
    }
  }
  const columns = groups.map((g) => ({ i: Uint32Array.from(g, (p) => p[0]), j: Uint32Array.from(g, (p) => p[1]) }));
  return { store, reference, columns, documents: docs.length };
}

const pleb = run();
const size = (s: number) => pleb.store.offsets[s + 1] - pleb.store.offsets[s];

/** PLEB's recall over every document pair after the first `groups` groups. */
function truth(groups: number): number {
  const sets = new UnionFind(pleb.store.count);
  for (const c of pleb.columns.slice(0, groups)) for (let k = 0; k < c.i.length; k++) sets.union(c.i[k], c.j[k]);
  let identical = 0;
  for (let s = 0; s < pleb.store.count; s++) identical += (size(s) * (size(s) - 1)) / 2;
  let total = identical;
  let found = identical;
  for (const [a, b] of pleb.reference) {
    total += size(a) * size(b);
    if (sets.find(a) === sets.find(b)) found += size(a) * size(b);
  }
  return found / total;
}

/** The reference triples of a sample: the pairs with a signature carrying a sampled document. */
function triplesOf(sampled: Uint8Array): Uint32Array {
  const carries = (s: number) => {
    for (let p = pleb.store.offsets[s]; p < pleb.store.offsets[s + 1]; p++) if (sampled[pleb.store.docs[p]] === 1) return true;
    return false;
  };
  return Uint32Array.from(pleb.reference.filter(([a, b]) => carries(a) || carries(b)).flatMap(([a, b]) => [a, b, 1]));
}

describe("PLEB's sampled recall", () => {
  it("takes its strata from the first group's clusters over the documents (0: alone)", () => {
    const store: SignatureStore = { words: 2, count: 4, signatures: new Uint32Array(8), offsets: Uint32Array.of(0, 2, 3, 4, 5), docs: Uint32Array.of(4, 0, 1, 2, 3) };
    // Signature 0 carries documents 4 and 0 (a cluster by itself); 1 and 3 are joined; 2 is alone.
    expect([...firstGroupClusters(store, 5, { i: Uint32Array.of(1), j: Uint32Array.of(3) })]).toEqual([1, 2, 0, 2, 1]);
  });

  it("equals the share of the reference pairs found when the whole corpus is sampled, in either design", () => {
    const all = new Uint8Array(pleb.documents).fill(1);
    const design = stratifiedDesign(firstGroupClusters(pleb.store, pleb.documents, pleb.columns[0]), pleb.documents);
    for (const recall of [new SampleRecall(pleb.store, all, triplesOf(all)), new SampleRecall(pleb.store, all, triplesOf(all), design)]) {
      recall.addColumns(pleb.columns[0]);
      expect(recall.estimate().estimate).toBeCloseTo(truth(1), 12);
      recall.addColumns(pleb.columns[1]);
      expect(recall.estimate().estimate).toBeCloseTo(truth(2), 12);
    }
  });

  it("with --partition-attr's units, equals the share of the pairs within one partition the cut graph finds when the whole corpus is sampled", () => {
    // Each document in one of three partitions: a signature of two documents may span two.
    const random = new Sfc32(5, 3);
    const part = Uint32Array.from({ length: pleb.documents }, () => random.nextUint32() % 3);
    const docsOf = (s: number) => Array.from(pleb.store.docs.subarray(pleb.store.offsets[s], pleb.store.offsets[s + 1]));
    // Over document pairs: the outputs' graph joins two documents of one partition whose signatures are one or were paired.
    const truthWithin = (groups: number) => {
      const sets = new UnionFind(pleb.documents);
      const join = (a: number, b: number) => docsOf(a).forEach((x) => docsOf(b).forEach((y) => part[x] === part[y] && sets.union(x, y)));
      for (let s = 0; s < pleb.store.count; s++) join(s, s);
      for (const c of pleb.columns.slice(0, groups)) for (let k = 0; k < c.i.length; k++) join(c.i[k], c.j[k]);
      let [total, found] = [0, 0];
      const count = (x: number, y: number) => part[x] === part[y] && (total++, sets.find(x) === sets.find(y) && found++);
      for (let s = 0; s < pleb.store.count; s++) docsOf(s).forEach((x, p, own) => own.slice(p + 1).forEach((y) => count(x, y)));
      for (const [a, b] of pleb.reference) docsOf(a).forEach((x) => docsOf(b).forEach((y) => count(x, y)));
      return found / total;
    };
    const all = new Uint8Array(pleb.documents).fill(1);
    const units = partitionUnits(pleb.store, part);
    const design = stratifiedDesign(firstGroupClusters(pleb.store, pleb.documents, pleb.columns[0]), pleb.documents);
    for (const recall of [new SampleRecall(pleb.store, all, triplesOf(all), undefined, units), new SampleRecall(pleb.store, all, triplesOf(all), design, units)]) {
      for (const groups of [1, 2]) {
        recall.addColumns(pleb.columns[groups - 1]);
        const within = truthWithin(groups);
        expect(Math.abs(within - truth(groups))).toBeGreaterThan(0.01);
        expect(recall.estimate().estimate).toBeCloseTo(within, 12);
      }
    }
  });

  it("stratified by the first group's clusters, covers the true recall after each group 95 % of the time", () => {
    const replicates = 1000;
    const n = 300;
    const design = stratifiedDesign(firstGroupClusters(pleb.store, pleb.documents, pleb.columns[0]), n);
    const truths = [truth(1), truth(2)];
    const covered = { stratified: [0, 0], uniform: 0 };
    for (let seed = 1; seed <= replicates; seed++) {
      const sampled = drawStratified(design, seed);
      const recall = new SampleRecall(pleb.store, sampled, triplesOf(sampled), design);
      const uniformSample = sampleDocuments(pleb.documents, n, seed);
      const uniform = new SampleRecall(pleb.store, uniformSample, triplesOf(uniformSample));
      pleb.columns.forEach((columns, g) => {
        recall.addColumns(columns);
        uniform.addColumns(columns);
        const r = recall.estimate();
        if (r.low <= truths[g] && truths[g] <= r.high) covered.stratified[g]++;
        const u = uniform.estimate();
        if (u.low <= truths[g] && truths[g] <= u.high) covered.uniform++;
      });
    }
    for (const share of covered.stratified.map((c) => c / replicates)) {
      expect(share).toBeGreaterThanOrEqual(0.92);
      expect(share).toBeLessThanOrEqual(0.98);
    }
    // The uniform sample's Wilson interval over the pairs treats a document's pairs as independent draws.
    expect(covered.uniform / (2 * replicates)).toBeLessThan(0.9);
  });
});
