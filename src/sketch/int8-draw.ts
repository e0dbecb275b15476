/**
 * Direct draws of int8 term-vector components: q = round(127·z/4) clipped to [−127, 127],
 * z ~ N(0,1), sampled from its exact distribution instead of quantising a Gaussian.
 *
 * A uniform 32-bit u maps to q by its inverse CDF: q = −127 + #{k : thresholds[k] ≤ u},
 * thresholds[k] = round(2^32·Φ((k − 126.5)/31.75)) for k = 0 … 253, the cut between q = k − 127
 * and k − 126 (round half up). So P(q) is the quantised
 * Gaussian's to within 2^-32 — the resolution of the uniform, 4 orders of magnitude below the
 * smallest probability (P(q = ±126) ≈ 4.6e-6). Fast path: one table entry per value of u's
 * top 16 bits, q itself when all 2^16 values of u in the bucket map to one q (≥ 99.6 % of the
 * buckets: 254 cuts straddle at most 254 of them), else q of the bucket's first u + SPLIT,
 * and the cuts above it decide.
 *
 * Determinism: each 2^32·Φ is computed to ≈ 1e-6 absolute and lies further than that from a
 * rounding tie (tested), so every platform builds the same tables.
 *
 * Uniforms: four interleaved sfc32 streams ("lanes"), component j from lane j mod 4, so that
 * the WebAssembly kernel (int8-draw.wat) steps the four in one i32x4; `drawLanes` is the
 * TypeScript reference, bit-identical, used where the kernel is unavailable.
 */

import { WasmKernel, type KernelStatus, type WasmMemory } from "../util/wasm-kernel.js";
import { wasm } from "./int8-draw.wat.js";

/** 127/4: an int8 component is round(z·127/4), so ±4 standard deviations span [−127, 127]. */
export const INT8_SCALE = 31.75;

/** Bucket entries above 127 mark a bucket straddling a cut: q of its first u + SPLIT. */
const SPLIT = 512;

/** sfc32's author recommends discarding the first outputs after seeding. */
export const WARMUP = 12;

/**
 * Φ(x), the standard normal distribution function, in float64 to ≈ 1e-16 absolute: the series
 * Φ(x) = ½ + φ(x)·Σₙ x^(2n+1)/(1·3·…·(2n+1)) for x ≥ 0 (all terms positive, no cancellation;
 * ≈ 60 terms at x = 4), and 1 − Φ(−x) below 0. Only used at startup, for |x| ≤ 4.
 */
export function normalCdf(x: number): number {
  if (x < 0) return 1 - normalCdf(-x);
  const x2 = x * x;
  let term = x;
  let sum = x;
  for (let n = 1; term > 1e-18 * sum; n++) {
    term *= x2 / (2 * n + 1);
    sum += term;
  }
  return 0.5 + (sum * Math.exp(-x2 / 2)) / Math.sqrt(2 * Math.PI);
}

/** 2^32·Φ at the 254 cuts, unrounded (the tables round them; tests check the margin to a tie). */
export function scaledCuts(): number[] {
  return Array.from({ length: 254 }, (_, k) => 0x1_0000_0000 * normalCdf((k - 126.5) / INT8_SCALE));
}

/** Uint32[254]: the cuts, ascending. */
export const THRESHOLDS = Uint32Array.from(scaledCuts(), Math.round);

/** Int16[2^16]: q of each bucket of u's top 16 bits, or q of its first u + SPLIT when it straddles a cut. */
export const BUCKETS = new Int16Array(0x1_0000);
{
  let q = -127;
  for (let b = 0; b < 0x1_0000; b++) {
    const first = b * 0x1_0000;
    while (q < 127 && THRESHOLDS[q + 127] <= first) q++;
    BUCKETS[b] = q < 127 && THRESHOLDS[q + 127] <= first + 0xffff ? q + SPLIT : q;
  }
}

/** The int8 component of the uniform u ∈ [0, 2^32): the definition, by a full search of the cuts. */
export function int8OfUniform(u: number): number {
  let q = -127;
  while (q < 127 && THRESHOLDS[q + 127] <= u) q++;
  return q;
}

/**
 * TypeScript reference: out[j] = int8 component of the next output of lane j mod 4, the lanes
 * sfc32 generators with states a = lanes[L], b = lanes[4 + L], c = lanes[8 + L], d = 1, warmed
 * up by WARMUP steps. Lanes are independent, so each fills its own components in turn.
 */
export function drawLanes(lanes: Int32Array, out: Int8Array): void {
  const n = out.length;
  for (let lane = 0; lane < 4; lane++) {
    let a = lanes[lane];
    let b = lanes[4 + lane];
    let c = lanes[8 + lane];
    let d = 1;
    let t = 0;
    for (let i = 0; i < WARMUP; i++) {
      t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (((c << 21) | (c >>> 11)) + t) | 0;
    }
    for (let j = lane; j < n; j += 4) {
      t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (((c << 21) | (c >>> 11)) + t) | 0;
      let q = BUCKETS[t >>> 16];
      if (q > 127) {
        // A bucket straddling a cut (< 0.4 %): the cuts above the bucket's first q decide.
        const u = t >>> 0;
        q -= SPLIT;
        while (q < 127 && THRESHOLDS[q + 127] <= u) q++;
      }
      out[j] = q;
    }
  }
}

const drawKernel = new WasmKernel("int8-draw", wasm);

/** The kernel's memory layout (int8-draw.wat). */
const THRESHOLDS_AT = 131_072;
const STATE_AT = 132_096;
const OUT_AT = 132_160;
const PAGE = 65_536;

/** This thread's kernel instance: its memory views and how many components fit. */
interface DrawInstance {
  draw: (n: number) => void;
  state: Int32Array;
  bytes: Int8Array;
  capacity: number;
}

let instance: DrawInstance | null | undefined;

/** The kernel over a memory holding `components` outputs, tables copied in; null when unavailable. */
function instantiate(components: number): DrawInstance | null {
  if (drawKernel.module() === null) return null;
  const pages = Math.ceil((OUT_AT + components + 4) / PAGE);
  const memory = drawKernel.memory(pages);
  const exports = drawKernel.instantiate(memory as WasmMemory);
  new Int16Array(memory.buffer, 0, BUCKETS.length).set(BUCKETS);
  new Uint32Array(memory.buffer, THRESHOLDS_AT, THRESHOLDS.length).set(THRESHOLDS);
  const state = new Int32Array(memory.buffer, STATE_AT, 16);
  state.fill(1, 12); // d = 1 in every lane
  return { draw: exports.draw as (n: number) => void, state, bytes: new Int8Array(memory.buffer, OUT_AT), capacity: pages * PAGE - OUT_AT - 4 };
}

/** Fills `out` from `lanes` (as drawLanes) in WebAssembly when available, else with drawLanes. */
export function drawInt8(lanes: Int32Array, out: Int8Array): void {
  const n = out.length;
  if (instance === undefined || (instance !== null && instance.capacity < n)) instance = instantiate(n);
  if (instance === null || n === 0) {
    drawLanes(lanes, out);
    return;
  }
  instance.state.set(lanes);
  instance.draw(n);
  out.set(instance.bytes.subarray(0, n));
}

/** Whether int8 components are drawn by the WebAssembly kernel in this thread. */
export function int8DrawInWasm(): boolean {
  return drawKernel.module() !== null;
}

/** On the coordinator, before the sign pass: the kernel's status for the manifest (a fallback is told once through `warn`). */
export function int8DrawKernelStatus(warn: (message: string) => void): KernelStatus {
  return drawKernel.report(warn);
}
