import { describe, expect, it } from "vitest";
import { cosineBlock } from "../../../src/eval/exact/cosine-block.js";
import { allPairsSimilarity } from "../../../src/eval/exact/similarity.js";
import { invertRows, rowCosine, unitRows, type SparseRows } from "../../../src/features/sparse-rows.js";
import { WorkerPool } from "../../../src/executor/pool.js";
import { REFERENCE_WORKERS } from "../../../src/eval/exact/reference-entry.js";
import { silentReporter } from "../../../src/executor/progress.js";
import { rng } from "../../helpers/vert.js";

/** Dense random vectors over `columns` terms (skewed use of terms), some perturbed copies. */
function randomDense(seed: number, n: number, columns: number): number[][] {
  const r = rng(seed);
  const docs: number[][] = [];
  for (let d = 0; d < n; d++) {
    const v = new Array<number>(columns).fill(0);
    if (d > 0 && r() < 0.3) {
      const src = docs[Math.floor(r() * d)];
      for (let t = 0; t < columns; t++) v[t] = src[t] > 0 && r() < 0.2 ? src[t] + r() : src[t];
      v[Math.floor(r() * columns)] += r() < 0.5 ? 1 : 0;
    } else {
      const len = 1 + Math.floor(r() * 10);
      for (let k = 0; k < len; k++) v[Math.floor(r() ** 2 * columns)] = 1 + Math.floor(r() * 4);
    }
    docs.push(v);
  }
  return docs;
}

function toRows(dense: number[][], ordinalOffset = 0): SparseRows {
  const rowPtr = [0];
  const cols: number[] = [];
  const vals: number[] = [];
  for (const v of dense) {
    v.forEach((x, t) => {
      if (x !== 0) {
        cols.push(t);
        vals.push(x);
      }
    });
    rowPtr.push(cols.length);
  }
  const ordinals = Uint32Array.from(dense, (_, k) => 2 * k + ordinalOffset); // ordinals ≠ rows
  return unitRows(ordinals, Uint32Array.from(rowPtr), Uint32Array.from(cols), Float64Array.from(vals), dense[0].length);
}

function naive(dense: number[][], threshold: number): { pairs: string[]; nearEdge: number } {
  const norm = dense.map((v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0)));
  const pairs: string[] = [];
  let nearEdge = 0;
  for (let a = 0; a < dense.length; a++) {
    for (let b = a + 1; b < dense.length; b++) {
      let dot = 0;
      for (let t = 0; t < dense[a].length; t++) dot += dense[a][t] * dense[b][t];
      const c = Math.min(1, dot / (norm[a] * norm[b]));
      if (Math.abs(c - threshold) < 1e-9) nearEdge++;
      if (c >= threshold) pairs.push(`${a} ${b}`);
    }
  }
  return { pairs: pairs.sort(), nearEdge };
}

const keys = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a, (x, k) => `${x} ${b[k]}`).sort();

describe("exact cosine blocks against a naive dense computation", () => {
  for (const threshold of [0.3137, 0.7531, 0.9513]) {
    for (const seed of [1, 2]) {
      it(`threshold ${threshold}, seed ${seed}`, () => {
        const dense = randomDense(seed * 31 + threshold * 1e4, 150, 30);
        const expected = naive(dense, threshold);
        expect(expected.nearEdge).toBe(0); // thresholds sit away from any cosine
        expect(expected.pairs.length).toBeGreaterThan(5);
        const rows = toRows(dense);
        const postings = invertRows(rows);
        // Any split into blocks gives the same pairs.
        const got: string[] = [];
        for (const [from, to] of [[0, 17], [17, 90], [90, 150]]) {
          const queries = Uint32Array.from({ length: to - from }, (_, k) => from + k);
          const block = cosineBlock({ rows, postings, queries, threshold, sampled: null });
          got.push(...keys(block.a, block.b));
        }
        expect(got.sort()).toEqual(expected.pairs);
        // With a sample: the naive pairs that involve a sampled row.
        const sampled = new Uint8Array(150);
        const picks = [0, 5, 6, 70, 149];
        for (const p of picks) sampled[p] = 1;
        const block = cosineBlock({ rows, postings, queries: Uint32Array.from(picks), threshold, sampled });
        expect(keys(block.a, block.b)).toEqual(expected.pairs.filter((p) => p.split(" ").some((x) => sampled[Number(x)] === 1)));
        // rowCosine agrees with the block's value.
        const scratch = new Float64Array(30);
        const all = cosineBlock({ rows, postings, queries: Uint32Array.from({ length: 150 }, (_, k) => k), threshold, sampled: null });
        for (let k = 0; k < all.a.length; k++) expect(rowCosine(rows, all.a[k], all.b[k], scratch)).toBeCloseTo(all.similarity[k], 12);
      });
    }
  }

  it("on the worker pool: corpus ordinals, with and without a sample", async () => {
    const dense = randomDense(77, 300, 40);
    const rows = toRows(dense, 1);
    const expected = naive(dense, 0.8).pairs.map((p) => p.split(" ").map((x) => 2 * Number(x) + 1).join(" ")).sort();
    const pool = new WorkerPool(REFERENCE_WORKERS, 2);
    try {
      const got = await allPairsSimilarity(rows, { threshold: 0.8, sampled: null }, pool, silentReporter);
      expect(keys(got.a, got.b)).toEqual(expected);
      const sampled = new Uint8Array(601);
      sampled[1] = sampled[301] = 1;
      const some = await allPairsSimilarity(rows, { threshold: 0.8, sampled }, pool, silentReporter);
      expect(keys(some.a, some.b)).toEqual(expected.filter((p) => p.split(" ").some((x) => x === "1" || x === "301")));
    } finally {
      await pool.close();
    }
  });
});
