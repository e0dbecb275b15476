import { hammingTileTs } from "./hamming-block.js";
import { HammingWasm, hammingKernel } from "./hamming-wasm.js";
import { Triples } from "../../util/triples.js";

/**
 * Worker side of hamming-full: rows of the all-pairs Hamming comparison, tiled so that a
 * block of I_BLOCK signatures is compared with J_TILE others while those stay in cache.
 */
export interface HammingRowsTask {
  signatures: Uint32Array;
  words: number;
  maxDistance: number;
  /** Rows [from, to) against all later signatures (the upper triangle)… */
  from: number;
  to: number;
  /** …or, when given, these rows against every other signature (sample lists)… */
  rows?: Uint32Array;
  /** …where sampled[r] = 1 for the rows of the sample: a pair of two sampled rows is
   * produced from its later row only. */
  sampled?: Uint8Array;
  /** Force the TypeScript kernel (tests and benchmarks compare the two). */
  portable?: boolean;
}

const I_BLOCK = 32;
const J_TILE = 2048;

/** Worker-local kernel over the current store, rebuilt when another store arrives. */
let kernel: { signatures: Uint32Array; wasm: HammingWasm } | null = null;

type Tile = (iFrom: number, iTo: number, jFrom: number, jTo: number, upper: boolean, out: Triples) => void;

function tileFunction(task: HammingRowsTask): Tile {
  const { signatures, words, maxDistance } = task;
  if (task.portable === true || words % 8 !== 0 || hammingKernel.module() === null) {
    return (iFrom, iTo, jFrom, jTo, upper, out) => {
      const at = out.reserve((iTo - iFrom) * (jTo - jFrom));
      out.used += 3 * hammingTileTs(signatures, words, iFrom, iTo, jFrom, jTo, upper, maxDistance, out.data, at);
    };
  }
  if (kernel === null || kernel.signatures !== signatures) {
    kernel = { signatures, wasm: new HammingWasm(signatures, words, I_BLOCK * J_TILE) };
  }
  const wasm = kernel.wasm;
  return (iFrom, iTo, jFrom, jTo, upper, out) => {
    const at = out.reserve((iTo - iFrom) * (jTo - jFrom));
    out.used += 3 * wasm.tile(iFrom, iTo, jFrom, jTo, upper, maxDistance, out.data, at);
  };
}

/**
 * (i, j, d) for every pair within maxDistance, i < j signature indices, each once: for rows
 * [from, to) each pair with a later signature; for `rows`, each pair with another signature.
 */
export function hammingRows(task: HammingRowsTask): Uint32Array {
  const n = task.signatures.length / task.words;
  const tile = tileFunction(task);
  const out = new Triples();
  if (task.rows === undefined) {
    for (let i0 = task.from; i0 < task.to; i0 += I_BLOCK) {
      const i1 = Math.min(task.to, i0 + I_BLOCK);
      for (let j0 = i0 + 1; j0 < n; j0 += J_TILE) tile(i0, i1, j0, Math.min(n, j0 + J_TILE), true, out);
    }
    return out.toArray();
  }
  const rect = new Triples();
  for (const i of task.rows) {
    rect.used = 0;
    for (let j0 = 0; j0 < n; j0 += J_TILE) tile(i, i + 1, j0, Math.min(n, j0 + J_TILE), false, rect);
    const at = out.reserve(rect.used / 3);
    let k = at;
    for (let t = 0; t < rect.used; t += 3) {
      const j = rect.data[t + 1];
      if (j === i || (j < i && task.sampled?.[j] === 1)) continue;
      out.data[k++] = Math.min(i, j);
      out.data[k++] = Math.max(i, j);
      out.data[k++] = rect.data[t + 2];
    }
    out.used = k;
  }
  return out.toArray();
}
