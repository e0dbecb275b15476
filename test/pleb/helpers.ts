import { Sfc32 } from "../../src/sketch/random-vectors.js";

/** n random signatures of W words, from a fixed seed. */
export function randomStore(n: number, W: number, seed: number): Uint32Array {
  const r = new Sfc32(seed, 0);
  const store = new Uint32Array(n * W);
  for (let i = 0; i < store.length; i++) store[i] = r.nextUint32();
  return store;
}

/** Bit j of signature i. */
export function bit(store: Uint32Array, W: number, i: number, j: number): number {
  return (store[i * W + (j >>> 5)] >>> (j & 31)) & 1;
}

/** Naive bit-by-bit Hamming distance. */
export function naiveDistance(store: Uint32Array, W: number, i: number, j: number): number {
  let d = 0;
  for (let b = 0; b < W * 32; b++) d += bit(store, W, i, b) ^ bit(store, W, j, b);
  return d;
}

/** Flips `count` distinct random bits of signature i in place. */
export function flipBits(store: Uint32Array, W: number, i: number, count: number, r: Sfc32): void {
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(r.nextBelow(W * 32));
  for (const b of chosen) store[i * W + (b >>> 5)] ^= 1 << (b & 31);
}
