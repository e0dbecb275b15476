import { afterAll, describe, expect, it } from "vitest";
import type { ShardCounts } from "../../src/features/count-shard.js";
import { readRunFileSync, writeRunFile } from "../../src/runs/run-file.js";
import type { SigRecord } from "../../src/runs/signature-record.js";
import { createWorkdir, shardFile } from "../../src/coordinator/workdir.js";
import { termVector, VectorCache } from "../../src/sketch/random-vectors.js";
import { signShard } from "../../src/sketch/sign-shard.js";
import { accumulate, INT32_WEIGHT_LIMIT, signBits } from "../../src/sketch/signature.js";
import { NumberMap } from "../../src/util/number-map.js";
import { removeTempDirs, tempDir } from "../helpers/cli.js";

afterAll(removeTempDirs);

const BITS = 1024;
const SEED = 3;

/** The float64 reference signature of int8 vectors with weights `counts` (tf). */
function reference(terms: number[], counts: number[]): Uint32Array {
  const acc = new Float64Array(BITS);
  const v = new Int8Array(BITS);
  terms.forEach((t, i) => {
    termVector(SEED, t, v);
    accumulate(acc, v, counts[i]);
  });
  const out = new Uint32Array(BITS / 32);
  signBits(acc, out, 0);
  return out;
}

describe("signShard, int8 and tf", () => {
  it("sums in int32 only while they cannot overflow: a document of huge counts gets its float64 bits", async () => {
    const workdir = tempDir();
    await createWorkdir(workdir);
    const [a, b] = [101, 202];
    // Document 0: Σ counts over the limit (int32 sums would wrap); document 1: small counts.
    const docs = [
      { terms: [a, b], counts: [2 ** 26, 1] },
      { terms: [b, a], counts: [3, 5] },
    ];
    const counts: ShardCounts = {
      ordinals: Uint32Array.from([0, 1]),
      lengths: Uint32Array.from(docs.map((d) => d.terms.length)),
      terms: Float64Array.from(docs.flatMap((d) => d.terms)),
      counts: Uint32Array.from(docs.flatMap((d) => d.counts)),
    };
    expect(2 ** 26 + 1).toBeGreaterThan(INT32_WEIGHT_LIMIT);
    await writeRunFile(shardFile(workdir, 0, "counts"), [counts]);
    const ranks = new NumberMap(2, true);
    ranks.set(a, 0);
    ranks.set(b, 1);
    const factors = new Float64Array(new SharedArrayBuffer(16)).fill(1);
    // a is cached, b is computed afresh.
    const cache = VectorCache.build("int8", SEED, BITS, [a], 1);
    cache.fill();
    const stats = await signShard({ workdir, index: 0, bits: BITS, seed: SEED, ranks: ranks.toShared(), factors, onceFactor: 0, factorScale: 1, cache: cache.toShared() });
    expect(stats.signed).toBe(2);
    const records = readRunFileSync<SigRecord>(shardFile(workdir, 0, "run"));
    for (const r of records) expect(Uint32Array.from(r.s)).toEqual(reference(docs[r.d].terms, docs[r.d].counts));
  });
});
