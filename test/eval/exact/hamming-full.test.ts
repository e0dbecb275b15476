import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hammingTileTs } from "../../../src/eval/exact/hamming-block.js";
import { HammingWasm } from "../../../src/eval/exact/hamming-wasm.js";
import { hammingRows } from "../../../src/eval/exact/hamming-task.js";
import { documentPairsOf, hammingFullTriples } from "../../../src/eval/exact/hamming-full.js";
import { WorkerPool } from "../../../src/executor/pool.js";
import { REFERENCE_WORKERS } from "../../../src/eval/exact/reference-entry.js";
import { silentReporter } from "../../../src/executor/progress.js";
import { maxDistanceFor } from "../../../src/pleb/hamming.js";
import type { SignatureStore } from "../../../src/runs/signature-store.js";
import { rng } from "../../helpers/vert.js";

/** n random signatures of W words; a third are copies of an earlier one with a few bits flipped. */
function randomStore(seed: number, n: number, W: number): Uint32Array {
  const r = rng(seed);
  const s = new Uint32Array(new SharedArrayBuffer(4 * n * W));
  for (let i = 0; i < n; i++) {
    const src = i > 0 && r() < 0.35 ? Math.floor(r() * i) : -1;
    const flips = Math.floor(r() * W * 32 * 0.15);
    for (let w = 0; w < W; w++) s[i * W + w] = src < 0 ? Math.floor(r() * 2 ** 32) : s[src * W + w];
    if (src >= 0) for (let f = 0; f < flips; f++) s[i * W + Math.floor(r() * W)] ^= 1 << Math.floor(r() * 32);
  }
  return s;
}

/** Naive reference: bit by bit, every pair. */
function naive(s: Uint32Array, W: number, maxDistance: number): string[] {
  const n = s.length / W;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      let d = 0;
      for (let w = 0; w < W; w++) for (let b = 0; b < 32; b++) d += ((s[i * W + w] ^ s[j * W + w]) >>> b) & 1;
      if (d <= maxDistance) out.push(`${i} ${j} ${d}`);
    }
  }
  return out.sort();
}

function asStrings(t: Uint32Array): string[] {
  const out: string[] = [];
  for (let k = 0; k < t.length; k += 3) out.push(`${t[k]} ${t[k + 1]} ${t[k + 2]}`);
  return out.sort();
}

describe("hamming-full kernels against a naive bit-by-bit computation", () => {
  for (const W of [2, 8, 16, 32]) {
    for (const threshold of [0.75, 0.9, 0.97]) {
      it(`${W * 32} bits, threshold ${threshold}`, () => {
        const s = randomStore(W * 7 + threshold * 100, 220, W);
        const maxDistance = maxDistanceFor(W * 32, threshold);
        const expected = naive(s, W, maxDistance);
        expect(expected.length).toBeGreaterThan(10);
        const portable = hammingRows({ signatures: s, words: W, maxDistance, from: 0, to: 220, portable: true });
        expect(asStrings(portable)).toEqual(expected);
        const fast = hammingRows({ signatures: s, words: W, maxDistance, from: 0, to: 220 });
        expect(asStrings(fast)).toEqual(expected);
        if (W % 8 === 0) expect(fast).toEqual(portable); // same triples in the same order
      });
    }
  }

  it("the WebAssembly tile equals the TypeScript tile on rectangles and triangles", () => {
    const W = 16;
    const s = randomStore(99, 150, W);
    const wasm = new HammingWasm(s, W, 150 * 150);
    for (const [iFrom, iTo, jFrom, jTo, upper] of [
      [0, 150, 0, 150, true],
      [10, 40, 0, 150, false],
      [30, 31, 5, 149, false],
      [100, 150, 20, 60, true],
    ] as const) {
      for (const maxDistance of [0, 40, 200, 512]) {
        const a = new Uint32Array(3 * 150 * 150);
        const b = new Uint32Array(3 * 150 * 150);
        const na = wasm.tile(iFrom, iTo, jFrom, jTo, upper, maxDistance, a);
        const nb = hammingTileTs(s, W, iFrom, iTo, jFrom, jTo, upper, maxDistance, b);
        expect(na).toBe(nb);
        expect(a.subarray(0, 3 * na)).toEqual(b.subarray(0, 3 * nb));
      }
    }
  });

  it("the compiled hamming.wat gives the TypeScript tile's triples, in order, on random stores and tiles", () => {
    fc.assert(
      fc.property(
        fc.record({
          seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
          n: fc.integer({ min: 1, max: 70 }),
          W: fc.constantFrom(8, 16, 32),
          rect: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 }),
          upper: fc.boolean(),
          share: fc.double({ min: 0, max: 1, noNaN: true }),
        }),
        ({ seed, n, W, rect, upper, share }) => {
          const s = randomStore(seed, n, W);
          const [i0, i1] = [Math.floor(rect[0] * n), Math.floor(rect[1] * n)].sort((x, y) => x - y);
          const [j0, j1] = [Math.floor(rect[2] * n), Math.floor(rect[3] * n)].sort((x, y) => x - y);
          const maxDistance = Math.floor(share * W * 32);
          const pairs = Math.max(1, (i1 - i0) * (j1 - j0));
          const a = new Uint32Array(3 * pairs);
          const b = new Uint32Array(3 * pairs);
          const na = new HammingWasm(s, W, pairs).tile(i0, i1, j0, j1, upper, maxDistance, a);
          const nb = hammingTileTs(s, W, i0, i1, j0, j1, upper, maxDistance, b);
          expect(na).toBe(nb);
          expect(a).toEqual(b);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("with a sample: exactly the pairs that involve a sampled signature, each once", () => {
    const W = 8;
    const s = randomStore(5, 200, W);
    const maxDistance = maxDistanceFor(256, 0.8);
    const sampled = new Uint8Array(200);
    for (const i of [0, 3, 17, 18, 50, 199]) sampled[i] = 1;
    const rows = Uint32Array.from([0, 3, 17, 18, 50, 199]);
    const expected = naive(s, W, maxDistance).filter((p) => p.split(" ").slice(0, 2).some((x) => sampled[Number(x)] === 1));
    expect(expected.length).toBeGreaterThan(3);
    for (const portable of [true, false]) {
      const got = hammingRows({ signatures: s, words: W, maxDistance, from: 0, to: 0, rows, sampled, portable });
      expect(asStrings(got)).toEqual(expected);
    }
  });

  it("on the worker pool, with and without a sample", async () => {
    const W = 32;
    const n = 400;
    const signatures = randomStore(11, n, W);
    const offsets = Uint32Array.from({ length: n + 1 }, (_, i) => i);
    const store: SignatureStore = { words: W, count: n, signatures, offsets, docs: Uint32Array.from({ length: n }, (_, i) => i) };
    const pool = new WorkerPool(REFERENCE_WORKERS, 2);
    try {
      const all = await hammingFullTriples(store, { threshold: 0.9, sampled: null }, pool, silentReporter);
      expect(asStrings(all)).toEqual(naive(signatures, W, maxDistanceFor(1024, 0.9)));
      const sampled = new Uint8Array(n);
      sampled[7] = sampled[300] = 1;
      const some = await hammingFullTriples(store, { threshold: 0.9, sampled }, pool, silentReporter);
      expect(asStrings(some)).toEqual(asStrings(all).filter((p) => ["7", "300"].some((x) => p.split(" ").slice(0, 2).includes(x))));
    } finally {
      await pool.close();
    }
  });
});

describe("documentPairsOf", () => {
  it("expands signature pairs and identical signatures to document pairs", () => {
    // 64-bit signatures: 0 holds documents 4 and 1, 1 holds 2, 2 holds 0 and 3; d(0, 1) = 16.
    const store: SignatureStore = {
      words: 2,
      count: 3,
      signatures: new Uint32Array(6),
      offsets: Uint32Array.from([0, 2, 3, 5]),
      docs: Uint32Array.from([4, 1, 2, 0, 3]),
    };
    const p = documentPairsOf(store, Uint32Array.from([0, 1, 16]), null);
    const rows = [...p.a].map((a, k) => `${a}-${p.b[k]}:${p.similarity[k]}`).sort();
    expect(rows).toEqual(["0-3:1", "1-2:0.75", "1-4:1", "2-4:0.75"]);
    const sampled = Uint8Array.from([0, 0, 1, 0, 0]);
    const q = documentPairsOf(store, Uint32Array.from([0, 1, 16]), sampled);
    expect([...q.a].map((a, k) => `${a}-${q.b[k]}`).sort()).toEqual(["1-2", "2-4"]);
  });
});
