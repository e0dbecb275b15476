import { Sfc32 } from "../sketch/random-vectors.js";

/** Stream id separating the sample's generator from the term vectors and permutations of the same seed. */
const SAMPLE_STREAM = 0x5a3b1e;

/** Uniform in [0, j] from 53 random bits (documents may exceed 2^16). */
function below(random: Sfc32, j: number): number {
  const u = (random.nextUint32() * 0x20_0000 + (random.nextUint32() >>> 11)) / 2 ** 53;
  return Math.floor(u * (j + 1));
}

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
    const t = below(random, j);
    flags[flags[t] === 1 ? j : t] = 1;
  }
  return flags;
}

/** Generator streams per batch of a growing sample: more than any number of strata. */
const STREAMS_PER_BATCH = 256;

/**
 * A seeded stratified sample: `sizes[h]` documents drawn uniformly among those of stratum h
 * (`stratumOf`) not flagged in `taken`, by Floyd's algorithm over those documents in corpus
 * order, one generator stream per stratum and `batch`. A pure function of (stratumOf, sizes,
 * seed, taken, batch). Conditional on `taken`, a uniform draw from the rest, so that `taken`
 * and the new documents together are a uniform sample of each stratum (a growing sample).
 */
export function sampleWithin(stratumOf: Uint8Array, sizes: ArrayLike<number>, seed: number, taken?: Uint8Array, batch = 0): Uint8Array {
  const flags = new Uint8Array(stratumOf.length);
  const members = new Uint32Array(stratumOf.length);
  for (let h = 0; h < sizes.length; h++) {
    let count = 0;
    for (let d = 0; d < stratumOf.length; d++) if (stratumOf[d] === h && taken?.[d] !== 1) members[count++] = d;
    const random = new Sfc32(seed, SAMPLE_STREAM + 1 + h + STREAMS_PER_BATCH * batch);
    const size = Math.min(sizes[h], count);
    for (let j = count - size; j < count; j++) {
      const t = below(random, j);
      const d = flags[members[t]] === 1 ? members[j] : members[t];
      flags[d] = 1;
    }
  }
  return flags;
}
