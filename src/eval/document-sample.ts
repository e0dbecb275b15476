import { Sfc32 } from "../sketch/random-vectors.js";

/** Stream id separating the sample's generator from the term vectors and permutations of the same seed. */
const SAMPLE_STREAM = 0x5a3b1e;

/**
 * A seeded uniform sample of `size` of the documents 0..documents−1 (all of them when
 * `size` ≥ documents), as flags per document — the thesis's sample_list, drawn instead of
 * listed. Floyd's algorithm: `size` draws, no per-document state beyond the flags, a pure
 * function of (documents, size, seed).
 */
export function sampleDocuments(documents: number, size: number, seed: number): Uint8Array {
  const flags = new Uint8Array(documents);
  if (size >= documents) return flags.fill(1);
  const random = new Sfc32(seed, SAMPLE_STREAM);
  for (let j = documents - size; j < documents; j++) {
    // Uniform in [0, j] from 53 random bits (documents may exceed 2^16).
    const u = (random.nextUint32() * 0x20_0000 + (random.nextUint32() >>> 11)) / 2 ** 53;
    const t = Math.floor(u * (j + 1));
    flags[flags[t] === 1 ? j : t] = 1;
  }
  return flags;
}
