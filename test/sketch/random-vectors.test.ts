import { describe, expect, it } from "vitest";
import { drawLanes } from "../../src/sketch/int8-draw.js";
import { INT8_FORMAT, Sfc32, termVector, VectorCache } from "../../src/sketch/random-vectors.js";

const BITS = 1024;

function vec(seed: number, term: number, bits = BITS): Float32Array {
  const out = new Float32Array(bits);
  termVector(seed, term, out);
  return out;
}

function correlation(a: Float32Array, b: Float32Array): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let j = 0; j < a.length; j++) {
    ab += a[j] * b[j];
    aa += a[j] * a[j];
    bb += b[j] * b[j];
  }
  return ab / Math.sqrt(aa * bb);
}

describe("termVector", () => {
  it("is a deterministic function of (seed, term, j)", () => {
    const term = 0x1f_ffff_ffff_fff0; // near 2^53
    expect(vec(42, term)).toEqual(vec(42, term));
    // Component j does not depend on the requested length: prefixes agree.
    expect(vec(42, term, 64)).toEqual(vec(42, term).subarray(0, 64));
    // Odd lengths are allowed and still prefixes.
    expect(vec(42, term, 7)).toEqual(vec(42, term).subarray(0, 7));
    // Frozen values: a change of the stream would silently change every signature, and
    // shards computed before and after it would disagree.
    expect(Array.from(vec(1, 12345, 4))).toEqual([
      0.20254360139369965, 1.025295615196228, -0.32219696044921875, 0.24235059320926666,
    ]);
  });

  it("has standard normal moments over 2^21 components", () => {
    // 2048 terms × 1024 components, N = 2^21. Standard errors: mean 1/√N ≈ 0.0007,
    // variance √(2/N) ≈ 0.001, 4th moment √(96/N) ≈ 0.0068; tolerances are ≈ 5 σ.
    const out = new Float32Array(BITS);
    let n = 0;
    let s1 = 0;
    let s2 = 0;
    let s4 = 0;
    let tail = 0;
    for (let t = 0; t < 2048; t++) {
      termVector(7, t * 7919 + 3, out);
      for (let j = 0; j < BITS; j++) {
        const x = out[j];
        s1 += x;
        s2 += x * x;
        s4 += x * x * x * x;
        if (Math.abs(x) > 2) tail++;
        n++;
      }
    }
    const mean = s1 / n;
    expect(Math.abs(mean)).toBeLessThan(0.0035);
    expect(Math.abs(s2 / n - mean * mean - 1)).toBeLessThan(0.005);
    expect(Math.abs(s4 / n - 3)).toBeLessThan(0.035);
    // P(|Z| > 2) = 0.0455, binomial σ = √(p(1−p)/N) ≈ 0.00014.
    expect(Math.abs(tail / n - 0.0455)).toBeLessThan(0.0008);
  });

  it("gives independent vectors for different terms and seeds", () => {
    // For independent vectors the sample correlation over 1024 components has σ = 1/32;
    // neighbouring ids and seeds are the likeliest to leak structure. Mean over 200 pairs:
    // σ = 1/(32·√200) ≈ 0.0022; single pairs stay within 5/32.
    let sum = 0;
    let sumSq = 0;
    const pairs = 200;
    for (let k = 0; k < pairs; k++) {
      const [a, b] =
        k % 2 === 0 ? [vec(5, k), vec(5, k + 1)] : [vec(k, 1000), vec(k + 1, 1000)];
      const r = correlation(a, b);
      expect(Math.abs(r)).toBeLessThan(5 / 32);
      sum += r;
      sumSq += r * r;
    }
    expect(Math.abs(sum / pairs)).toBeLessThan(0.011);
    // Mean squared correlation ≈ 1/1024 if independent.
    expect(sumSq / pairs).toBeGreaterThan(0.5 / 1024);
    expect(sumSq / pairs).toBeLessThan(1.5 / 1024);
    // Components within one vector: lag-1 autocorrelation, σ ≈ 1/√1023 per vector.
    let lag = 0;
    for (let t = 0; t < 100; t++) {
      const v = vec(9, t);
      lag += correlation(v.subarray(0, BITS - 1), v.subarray(1));
    }
    expect(Math.abs(lag / 100)).toBeLessThan(0.016);
  });

  it("consumes the stream of Sfc32(seed, term)", () => {
    const r = new Sfc32(3, 77);
    const u = (r.nextUint32() | 0) / 0x8000_0000;
    const v = (r.nextUint32() | 0) / 0x8000_0000;
    const s = u * u + v * v;
    expect(s).toBeLessThan(1); // the first point is accepted for this (seed, term)
    const f = Math.sqrt((-2 * Math.log(s)) / s);
    expect(vec(3, 77, 2)).toEqual(new Float32Array([u * f, v * f]));
  });
});

describe("Sfc32.nextBelow", () => {
  it("is roughly uniform", () => {
    const r = new Sfc32(1, 2);
    const counts = new Array<number>(10).fill(0);
    for (let i = 0; i < 100_000; i++) counts[r.nextBelow(10)]++;
    // Binomial σ ≈ 95: 5σ ≈ 475.
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(475);
  });
});

function vec8(seed: number, term: number, bits = BITS): Int8Array {
  const out = new Int8Array(bits);
  termVector(seed, term, out);
  return out;
}

describe("termVector, int8", () => {
  it("draws from four sfc32 lanes seeded by the first 12 outputs of Sfc32(seed, term)", () => {
    const r = new Sfc32(5, 104729);
    const lanes = Int32Array.from({ length: 12 }, () => r.nextUint32() | 0);
    const expected = new Int8Array(BITS);
    drawLanes(lanes, expected);
    expect(vec8(5, 104729)).toEqual(expected);
    // Frozen values: a change of the draw changes every int8 signature; it must come with a new
    // INT8_FORMAT, which work directories and indices record.
    expect(INT8_FORMAT).toBe(2);
    expect(Array.from(vec8(1, 12345, 8))).toEqual([43, 21, -19, 73, 68, 24, -10, 53]);
  });

  it("is deterministic and prefix-stable", () => {
    expect(vec8(42, 99)).toEqual(vec8(42, 99));
    expect(vec8(42, 99, 64)).toEqual(vec8(42, 99).subarray(0, 64));
    expect(vec8(42, 99, 7)).toEqual(vec8(42, 99).subarray(0, 7));
  });
});

describe("VectorCache", () => {
  const terms = [5, 2 ** 52 + 17, 0, 123456789, 5, 2 ** 53 - 1, 77];

  it("holds exactly the vectors termVector computes, after fill", () => {
    const cache = VectorCache.build("float32", 11, 256, terms);
    expect(cache.size).toBe(6); // duplicate 5 collapsed
    expect(cache.get(5)).toBeNull(); // not filled yet
    cache.fill(0, 3);
    expect(cache.get(5)).toEqual(vec(11, 5, 256));
    expect(cache.get(77)).toBeNull();
    cache.fill(3, cache.size);
    for (const t of terms) expect(cache.get(t)).toEqual(vec(11, t, 256));
    expect(cache.get(6)).toBeNull();
    expect(cache.slotOf(6)).toBe(-1);
  });

  it("reattaches from its shared parts without copying", () => {
    const cache = VectorCache.build("float32", 11, 128, terms);
    const parts = cache.toShared();
    for (const k of ["terms", "filled", "keys", "slots"] as const) {
      expect(parts[k]).toBeInstanceOf(SharedArrayBuffer);
    }
    expect(parts.memory.buffer).toBeInstanceOf(SharedArrayBuffer);
    // Two "workers" fill halves through their own attachments; the original sees both.
    const w1 = VectorCache.fromShared(structuredClone(parts));
    const w2 = VectorCache.fromShared(parts);
    w1.fill(0, 3);
    w2.fill(3, w2.size);
    for (const t of terms) expect(cache.get(t)).toEqual(vec(11, t, 128));
    expect(w1.slotOf(77)).toBe(cache.slotOf(77));
  });

  it("holds int8 vectors, a quarter of the float32 cache's bytes", () => {
    const cache = VectorCache.build("int8", 11, 256, terms);
    cache.fill();
    for (const t of terms) expect(cache.get(t)).toEqual(vec8(11, t, 256));
    expect(cache.memory.vectors).toBeInstanceOf(Int8Array);
    expect(cache.memory.vectors.byteLength).toBe(cache.size * 256);
  });

  it("handles many sequential ids and rejects bad input", () => {
    const ids = Array.from({ length: 5000 }, (_, i) => i);
    const cache = VectorCache.build("float32", 1, 64, ids);
    cache.fill();
    for (let i = 0; i < 5000; i += 397) expect(cache.get(i)).toEqual(vec(1, i, 64));
    expect(() => VectorCache.build("float32", 1, 64, [-1])).toThrow(RangeError);
    expect(() => VectorCache.build("float32", 1, 64, [1.5])).toThrow(RangeError);
    expect(() => cache.fill(0, 5001)).toThrow(RangeError);
    expect(VectorCache.build("float32", 1, 64, []).size).toBe(0);
  });
});
