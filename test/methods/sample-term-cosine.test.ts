import { describe, expect, it } from "vitest";
import { stringToken } from "../../src/corpus/vertical.js";
import { normalizeToken } from "../../src/features/normalize.js";
import { sampleTermCosines, sampleTermVectors, termSample } from "../../src/methods/sets/sample-term-cosine.js";
import { scanShard } from "../../src/methods/sets/shard-scan.js";
import { concatF64, concatU32 } from "../../src/util/typed-arrays.js";
import { collectChunks, writeVert } from "../helpers/vert.js";
import { FEATURES } from "./features.js";

const CORPUS = "data-samples/sample.vert.gz";

/** The documents' token-count vectors as simhash384 reads them: normalised tokens (strings), counted. */
async function countVectors(input: string, chunkBytes: number): Promise<Map<string, number>[]> {
  const out: Map<string, number>[] = [];
  for (const chunk of await collectChunks([input], chunkBytes)) {
    scanShard(chunk, FEATURES, stringToken, (doc) => {
      const counts = new Map<string, number>();
      for (const t of doc.tokens) {
        const norm = normalizeToken(t, FEATURES);
        if (norm !== null) counts.set(norm, (counts.get(norm) ?? 0) + 1);
      }
      out.push(counts);
    });
  }
  return out;
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [t, c] of a) (na += c * c, (dot += c * (b.get(t) ?? 0)));
  for (const c of b.values()) nb += c * c;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Every pair with a sampled document at cosine ≥ threshold, over all pairs. */
function brute(vectors: Map<string, number>[], sampled: Uint8Array, threshold: number): Map<string, number> {
  const out = new Map<string, number>();
  for (let a = 0; a < vectors.length; a++) {
    for (let b = a + 1; b < vectors.length; b++) {
      if (!sampled[a] && !sampled[b]) continue;
      const c = cosine(vectors[a], vectors[b]);
      if (c >= threshold) out.set(`${a}:${b}`, c);
    }
  }
  return out;
}

/** The worker tasks in this thread: pick the sampled vectors chunk by chunk, index them, score every chunk. */
async function sampled(input: string, chunkBytes: number, flags: Uint8Array, threshold: number): Promise<Map<string, number>> {
  const chunks = await collectChunks([input], chunkBytes);
  const parts = chunks.map((chunk) => sampleTermVectors({ chunk, options: FEATURES, sampled: flags }));
  const sample = termSample(concatU32(parts.map((p) => p.ordinals)), concatU32(parts.map((p) => p.lengths)), concatF64(parts.map((p) => p.terms)), concatF64(parts.map((p) => p.counts)));
  const out = new Map<string, number>();
  for (const chunk of chunks) {
    const p = sampleTermCosines({ chunk, options: FEATURES, sampled: flags, sample, threshold });
    for (let k = 0; k < p.a.length; k++) {
      const key = `${p.a[k]}:${p.b[k]}`;
      expect(out.has(key), key).toBe(false);
      out.set(key, p.similarity[k]);
    }
  }
  return out;
}

function expectSame(got: Map<string, number>, want: Map<string, number>): void {
  expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
  for (const [key, c] of want) expect(got.get(key), key).toBeCloseTo(c, 12);
}

describe("exact cosine of token counts (simhash384's reference) of a sample against the corpus", () => {
  it("gives every pair with a sampled document at cosine ≥ threshold exactly once, as brute force over the normalised tokens does, whatever the chunks", async () => {
    const vectors = await countVectors(CORPUS, 1 << 20);
    const flags = Uint8Array.from(vectors, (_, d) => (d % 7 === 3 || d % 11 === 0 ? 1 : 0));
    const want = brute(vectors, flags, 0.5);
    expect(want.size).toBeGreaterThan(50);
    for (const chunkBytes of [1 << 14, 1 << 20]) expectSame(await sampled(CORPUS, chunkBytes, flags, 0.5), want);
    // A higher threshold leaves more of each row out of the index: the same pairs as brute force's.
    expectSame(await sampled(CORPUS, 1 << 16, flags, 0.9), new Map([...want].filter(([, c]) => c >= 0.9)));
  }, 120_000);

  it("scores identical token counts exactly 1 and a document without kept tokens nothing", async () => {
    const input = writeVert('<doc id="a">\nthe\nsame\nwords\nthe\n</doc>\n<doc id="b">\nsame\nthe\nwords\nthe\n</doc>\n<doc id="c">\n123\n</doc>\n<doc id="d">\nthe\nsame\n</doc>\n');
    const got = await sampled(input, 1 << 14, Uint8Array.of(1, 0, 1, 0), 0.5);
    // a·d: (2·1 + 1·1) / √(6 · 2) = 0.866…
    expect([...got]).toEqual([["0:1", 1], ["0:3", 3 / Math.sqrt(12)]]);
  });
});
