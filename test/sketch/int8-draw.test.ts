import { describe, expect, it } from "vitest";
import { BUCKETS, drawInt8, drawLanes, int8DrawInWasm, int8OfUniform, INT8_SCALE, normalCdf, scaledCuts, THRESHOLDS } from "../../src/sketch/int8-draw.js";
import { termVector } from "../../src/sketch/random-vectors.js";

const BITS = 1024;

function vec8(seed: number, term: number, bits = BITS): Int8Array {
  const out = new Int8Array(bits);
  termVector(seed, term, out);
  return out;
}

/**
 * The int8 component of a N(0,1) value z, the definition the draw samples: round(127·z/4),
 * halves up, clipped to [−127, 127] (as 0.3.0 quantised its polar Gaussians).
 */
function quantize(z: number): number {
  const y = z * INT8_SCALE + 128.5;
  return ((y < 1 ? 1 : y > 255 ? 255 : y) | 0) - 128;
}

/** ∫ φ over [lo, hi] by composite Simpson: the probabilities computed independently of normalCdf's series. */
function normalMass(lo: number, hi: number, steps: number): number {
  const h = (hi - lo) / steps;
  const phi = (x: number) => Math.exp(-x * x / 2) / Math.sqrt(2 * Math.PI);
  let sum = phi(lo) + phi(hi);
  for (let i = 1; i < steps; i++) sum += (i % 2 === 1 ? 4 : 2) * phi(lo + i * h);
  return (sum * h) / 3;
}

/** P(q = k) of q = clip(round(31.75·z), ±127), z ~ N(0,1) (tails to ±12: beyond, < 1e-32). */
function exactProbability(k: number): number {
  const lo = k === -127 ? -12 : (k - 0.5) / INT8_SCALE;
  const hi = k === 127 ? 12 : (k + 0.5) / INT8_SCALE;
  return normalMass(lo, hi, k === 127 || k === -127 ? 4000 : 32);
}

function correlation(a: Int8Array, b: Int8Array): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  let sa = 0;
  let sb = 0;
  for (let j = 0; j < a.length; j++) {
    ab += a[j] * b[j];
    aa += a[j] * a[j];
    bb += b[j] * b[j];
    sa += a[j];
    sb += b[j];
  }
  const n = a.length;
  return (ab - (sa * sb) / n) / Math.sqrt((aa - (sa * sa) / n) * (bb - (sb * sb) / n));
}

describe("int8 draw tables", () => {
  it("computes Φ to float64 accuracy", () => {
    // Reference values of Φ (erfc to 17 digits).
    expect(normalCdf(0)).toBe(0.5);
    expect(Math.abs(normalCdf(1) - 0.8413447460685429)).toBeLessThan(1e-15);
    expect(Math.abs(normalCdf(-2) - 0.022750131948179195)).toBeLessThan(1e-15);
    expect(Math.abs(normalCdf(3.5) - 0.9997673709209645)).toBeLessThan(1e-15);
    expect(Math.abs(normalCdf(-4) - 3.167124183311992e-5)).toBeLessThan(1e-17);
  });

  it("has cuts far from a rounding tie, so every platform's Φ builds the same table", () => {
    // A platform's exp may differ in the last bit: 2^32·Φ then moves by < 1e-6.
    for (const x of scaledCuts()) expect(Math.abs((x % 1) - 0.5)).toBeGreaterThan(1e-4);
    for (let k = 1; k < THRESHOLDS.length; k++) expect(THRESHOLDS[k]).toBeGreaterThan(THRESHOLDS[k - 1]);
  });

  it("quantize clips and rounds halves up", () => {
    expect([quantize(0), quantize(1), quantize(-1), quantize(4.1), quantize(-9), quantize(2 / 31.75)]).toEqual([0, 32, -32, 127, -127, 2]);
  });

  it("puts each cut where quantize changes value", () => {
    for (let k = 0; k < THRESHOLDS.length; k++) {
      const z = (k - 126.5) / INT8_SCALE;
      expect(quantize(z - 1e-9)).toBe(k - 127);
      expect(quantize(z + 1e-9)).toBe(k - 126);
    }
  });

  it("maps every uniform by the bucket table as the full search does", () => {
    // Every bucket's ends, the values around every cut, and random uniforms.
    const us: number[] = [];
    for (let b = 0; b < BUCKETS.length; b++) us.push(b * 0x1_0000, b * 0x1_0000 + 0xffff);
    for (const t of THRESHOLDS) us.push(t - 1, t, t + 1);
    let x = 12345;
    for (let i = 0; i < 100_000; i++) us.push((x = (Math.imul(x, 1_103_515_245) + 12345) >>> 0));
    let straddling = 0;
    for (let b = 0; b < BUCKETS.length; b++) if (BUCKETS[b] > 127) straddling++;
    expect(straddling).toBeGreaterThan(0);
    expect(straddling).toBeLessThanOrEqual(THRESHOLDS.length);
    // drawLanes's lookup: the fast path and the exact search agree (the first disagreement is shown).
    const disagree = us.find((u) => {
      let q = BUCKETS[u >>> 16];
      if (q > 127) {
        q -= 512;
        while (q < 127 && THRESHOLDS[q + 127] <= u) q++;
      }
      return q !== int8OfUniform(u);
    });
    expect(disagree).toBeUndefined();
    expect(int8OfUniform(0)).toBe(-127);
    expect(int8OfUniform(0xffff_ffff)).toBe(127);
    expect(int8OfUniform(0x8000_0000)).toBe(0);
  });
});

describe("int8 draws", () => {
  it("are the same in WebAssembly and in TypeScript, for any length", () => {
    expect(int8DrawInWasm()).toBe(true);
    const lanes = new Int32Array(12);
    let x = 7;
    for (let v = 0; v < 500; v++) {
      for (let i = 0; i < 12; i++) lanes[i] = x = (Math.imul(x, 1_103_515_245) + 12345) | 0;
      for (const n of [1, 3, 7, 64, 1024, 1030]) {
        const wasm = new Int8Array(n);
        const ts = new Int8Array(n);
        drawInt8(lanes, wasm);
        drawLanes(lanes, ts);
        expect(wasm).toEqual(ts);
      }
    }
    // A length beyond the kernel's first memory grows it.
    const long = [new Int8Array(100_000), new Int8Array(100_000)];
    drawInt8(lanes, long[0]);
    drawLanes(lanes, long[1]);
    expect(long[0]).toEqual(long[1]);
  });

  it("follow the quantised Gaussian's exact distribution (chi-square over 2^21 components)", () => {
    const counts = new Float64Array(255);
    for (let t = 0; t < 2048; t++) {
      const v = vec8(3, t * 7919 + 11);
      for (let j = 0; j < BITS; j++) counts[v[j] + 127]++;
    }
    const n = 2048 * BITS;
    let total = 0;
    let chi2 = 0;
    for (let k = -127; k <= 127; k++) {
      const p = exactProbability(k);
      total += p;
      // The smallest expectations (q = ±126, ≈ 9.6) stay above 5: no bins need merging.
      expect(n * p).toBeGreaterThan(5);
      chi2 += (counts[k + 127] - n * p) ** 2 / (n * p);
    }
    expect(Math.abs(total - 1)).toBeLessThan(1e-12);
    // 254 degrees of freedom: P(χ² > 375.9) = 1e-6, P(χ² < 160.9) = 1e-6.
    expect(chi2).toBeLessThan(375.9);
    expect(chi2).toBeGreaterThan(160.9);
    // Both clipped tails are drawn (≈ 70 each).
    expect(counts[0]).toBeGreaterThan(30);
    expect(counts[254]).toBeGreaterThan(30);
  });

  it("are independent across components (lags 1–8, across and within lanes) and across terms and seeds", () => {
    // Over 1024 components one correlation has σ ≈ 1/32; means over 200 vectors σ ≈ 0.0022.
    for (let lag = 1; lag <= 8; lag++) {
      let sum = 0;
      for (let t = 0; t < 200; t++) {
        const v = vec8(9, t);
        sum += correlation(v.subarray(0, BITS - lag), v.subarray(lag));
      }
      expect(Math.abs(sum / 200)).toBeLessThan(0.011);
    }
    let sum = 0;
    let sumSq = 0;
    const pairs = 200;
    for (let k = 0; k < pairs; k++) {
      const [a, b] = k % 2 === 0 ? [vec8(5, k), vec8(5, k + 1)] : [vec8(k, 1000), vec8(k + 1, 1000)];
      const r = correlation(a, b);
      expect(Math.abs(r)).toBeLessThan(5 / 32);
      sum += r;
      sumSq += r * r;
    }
    expect(Math.abs(sum / pairs)).toBeLessThan(0.011);
    // Mean squared correlation ≈ 1/1024 if independent.
    expect(sumSq / pairs).toBeGreaterThan(0.5 / 1024);
    expect(sumSq / pairs).toBeLessThan(1.5 / 1024);
    // The four lanes of one vector: correlations of lane pairs over 200 vectors × 256 components.
    for (let l1 = 0; l1 < 4; l1++) {
      for (let l2 = l1 + 1; l2 < 4; l2++) {
        let r = 0;
        for (let t = 0; t < 200; t++) {
          const v = vec8(21, t);
          const a = new Int8Array(BITS / 4);
          const b = new Int8Array(BITS / 4);
          for (let i = 0; i < BITS / 4; i++) {
            a[i] = v[4 * i + l1];
            b[i] = v[4 * i + l2];
          }
          r += correlation(a, b);
        }
        // σ ≈ 1/(16·√200) ≈ 0.0044.
        expect(Math.abs(r / 200)).toBeLessThan(0.022);
      }
    }
  });
});
