/**
 * The prefix filter of the beam scan in WebAssembly (beam-scan.wat): over the prefixes,
 * labels and fresh positions gathered into its memory (gatherBeam), it walks the positions as
 * `beamScanTs` does, 128 bits per SIMD popcount, and hands back the candidates (the pairs
 * whose prefix distance is ≤ maxDistance) in scan order; beamScan compares them in full on
 * the store, so the pairs, distances and order are the TypeScript loop's. In TypeScript the
 * filter took ≈ 40 ns a comparison (SWAR popcount, bounds checks).
 */

import { WasmKernel, type KernelStatus, type WasmMemory } from "../util/wasm-kernel.js";
import { wasm } from "./beam-scan.wat.js";

const beamScanKernel = new WasmKernel("beam-scan", wasm);

/** On the coordinator, before the PLEB iterations: the kernel's status for the manifest (a fallback is told once through `warn`). */
export function beamScanKernelStatus(warn: (message: string) => void): KernelStatus {
  return beamScanKernel.report(warn);
}

const PAGE = 65536;
/** Candidates per call: the scan resumes after a full area (a scan with maxDistance ≥ the prefix's bits passes every pair). */
const CAPACITY = 4096;

type Scan = (k0: number, q0: number, count: number, span: number, beam: number, pBytes: number, fBytes: number, maxD: number, label: number, next: number, out: number, cap: number) => number;

/**
 * Bytes of the prefix the kernel tests four positions at a time on (0: none): the fewest, of 8
 * or a multiple of 16 up to 240, in which unrelated signatures (8F bits, each differing with
 * probability ½: 4F ± √(2F)) differ by more than maxDistance at 2σ, so that about 98 % of them
 * are rejected there. At 1024 bits: 16 bytes at threshold 0.95 (maxDistance 51), 48 at 0.876
 * (127, the candidates of a verified cosine 0.95).
 */
export function filterBytes(pBytes: number, maxDistance: number): number {
  const passes = (F: number) => 4 * F - 2 * Math.sqrt(2 * F) > maxDistance;
  if (pBytes < 16) return passes(8) ? 8 : 0;
  for (let F = 16; F <= Math.min(pBytes, 240); F += 16) if (passes(F)) return F;
  return 0;
}

/** Where a chunk's arrays lie in the kernel's memory (byte offsets). */
interface Layout {
  label: number;
  next: number;
  out: number;
  bytes: number;
}

function layout(span: number, P: number): Layout {
  const label = span * P * 4;
  const next = label + span * 4;
  // (k, q) pairs of i32, 8-byte aligned.
  const out = Math.ceil((next + (span + 1) * 4) / 8) * 8;
  return { label, next, out, bytes: out + CAPACITY * 8 };
}

/** A chunk's window in the kernel's memory: fill `prefix`, `label` and `next`, then read `candidates`. */
export interface BeamWindow {
  prefix: Uint32Array;
  label: Uint32Array;
  next: Uint32Array;
  /** The most candidates one call gives: as many means more may follow. */
  capacity: number;
  /**
   * The candidates (k, q) of positions [k0, count) in scan order, as k, q, k, q… (a view valid
   * until the next call); q0, 0 or where position k0's walk resumes.
   */
  candidates(k0: number, q0: number, count: number, beam: number, maxDistance: number): Uint32Array;
}

let memory: WasmMemory | null = null;
let scan: Scan | null = null;

/**
 * This thread's kernel over a window of `span` positions of P words (P even), in a memory
 * grown as needed; null where the kernel is unavailable or the window would not fit in 4 GiB.
 */
export function beamWindow(span: number, P: number): BeamWindow | null {
  if (P % 2 !== 0 || beamScanKernel.module() === null) return null;
  const at = layout(span, P);
  if (at.bytes > 2 ** 32 - PAGE) return null;
  if (memory === null || memory.buffer.byteLength < at.bytes) {
    memory = beamScanKernel.memory(Math.ceil(at.bytes / PAGE));
    scan = beamScanKernel.instantiate(memory).scan as Scan;
  }
  const { buffer } = memory;
  const run = scan as Scan;
  return {
    prefix: new Uint32Array(buffer, 0, span * P),
    label: new Uint32Array(buffer, at.label, span),
    next: new Uint32Array(buffer, at.next, span + 1),
    capacity: CAPACITY,
    candidates: (k0, q0, count, beam, maxDistance) => {
      const found = run(k0, q0, count, span, Math.min(beam, span), P * 4, filterBytes(P * 4, maxDistance), maxDistance, at.label, at.next, at.out, CAPACITY);
      return new Uint32Array(buffer, at.out, 2 * found);
    },
  };
}
