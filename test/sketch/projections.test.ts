import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { accumulateKernels } from "../../src/sketch/accumulate-wasm.js";
import { Projections } from "../../src/sketch/projections.js";
import { accumulate, accumulateInt32, INT32_WEIGHT_LIMIT, signBits } from "../../src/sketch/signature.js";
import { BLOCK_BYTES, SignMemory } from "../../src/sketch/sign-memory.js";
import { termVector } from "../../src/sketch/random-vectors.js";
import type { Projection } from "../../src/core/options.js";

/** A sign memory of `count` vectors filled with termVector(7, term(s), …). */
function filledMemory(projection: Projection, bits: number, count: number, regions = 2): SignMemory {
  const memory = SignMemory.create(projection, bits, count, regions);
  for (let s = 0; s < count; s++) termVector(7, 1000 + s * 7919, memory.vectors.subarray(s * bits, (s + 1) * bits));
  return memory;
}

/** One term of a document: a cache slot (or, staged, that slot's term computed afresh) and its weight. */
interface Term {
  slot: number;
  staged: boolean;
  weight: number;
}

/** The sums and signature of `terms` through Projections on `memory`. */
function project(memory: SignMemory, terms: readonly Term[], integerWeights: boolean): { sums: Float64Array | Int32Array; sig: Uint32Array } {
  const sum = Projections.lease(memory);
  try {
    sum.reset(integerWeights);
    for (const { slot, staged, weight } of terms) {
      if (staged) {
        termVector(7, 1000 + slot * 7919, sum.staging);
        sum.addStaged(weight);
      } else sum.addSlot(slot, weight);
    }
    const sig = new Uint32Array(memory.bits / 32);
    sum.signBits(sig, 0);
    return { sums: sum.sums().slice(), sig };
  } finally {
    sum.release();
  }
}

/** The TypeScript reference: accumulate / accumulateInt32 over fresh term vectors. */
function reference(projection: Projection, bits: number, terms: readonly Term[], int32: boolean): { sums: Float64Array | Int32Array; sig: Uint32Array } {
  const v = projection === "int8" ? new Int8Array(bits) : new Float32Array(bits);
  const sums = int32 ? new Int32Array(bits) : new Float64Array(bits);
  for (const { slot, weight } of terms) {
    termVector(7, 1000 + slot * 7919, v);
    if (sums instanceof Int32Array) accumulateInt32(sums, v as Int8Array, weight);
    else accumulate(sums, v, weight);
  }
  const sig = new Uint32Array(bits / 32);
  signBits(sums, sig, 0);
  return { sums, sig };
}

/** The same memory without its WebAssembly object: the TypeScript path. */
const plainOf = (memory: SignMemory) => SignMemory.fromShared({ ...memory.toShared(), memory: null });

const bytes = (a: Float64Array | Int32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

const COUNT = 37;

/**
 * Terms with weights like tf·idf (odd magnitudes that make rounding visible), or integers:
 * counts, fixed-point tf-idf weights within int16 (acc8d4) and beyond it (acc8i), negative ones.
 */
const termsArb = (integer: boolean) =>
  fc.array(
    fc.record({
      slot: fc.nat(COUNT - 1),
      staged: fc.boolean(),
      weight: integer
        ? fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: -0x8000, max: 0x7fff }), fc.integer({ min: 0x8000, max: 200_000 }), fc.integer({ min: -200_000, max: -0x8001 }))
        : fc.double({ min: -50, max: 50, noNaN: true }),
    }),
    { minLength: 1, maxLength: 60 },
  );

describe("Projections", () => {
  it("gives bit-identical float64 sums for float32 vectors in WebAssembly and in TypeScript", () => {
    for (const bits of [64, 1024]) {
      const memory = filledMemory("float32", bits, COUNT);
      expect(memory.memory).not.toBeNull();
      expect(accumulateKernels(memory)).not.toBeNull();
      const terms = Array.from({ length: 300 }, (_, t) => ({ slot: t % COUNT, staged: t % 2 === 1, weight: ((t % 5) + 1) * Math.log(1e6 / (t + 3)) }));
      const ref = reference("float32", bits, terms, false);
      const plain = plainOf(memory);
      expect(accumulateKernels(plain)).toBeNull();
      expect(bytes(project(memory, terms, false).sums).equals(bytes(ref.sums))).toBe(true);
      expect(bytes(project(plain, terms, false).sums).equals(bytes(ref.sums))).toBe(true);
      // Integer weights change nothing for float32 vectors: still float64 sums.
      expect(project(memory, terms, true).sums).toBeInstanceOf(Float64Array);
    }
  });

  it("adds cached int8 vectors four at a time (acc8x4) with the bits of one at a time, whatever run of them an uncached term or the end cuts", () => {
    const memory = filledMemory("int8", 1024, COUNT);
    expect(accumulateKernels(memory)?.acc8x4).toBeTypeOf("function");
    for (let run = 1; run <= 9; run++) {
      // Runs of `run` cached terms, each ended by a staged one, then a last run ended by the sums.
      const terms = Array.from({ length: 5 * (run + 1) + run }, (_, t) => ({ slot: (t * 11) % COUNT, staged: t % (run + 1) === run, weight: Math.log(1e6 / (t + 3)) * ((t % 3) + 1) }));
      const ref = reference("int8", 1024, terms, false);
      const wasm = project(memory, terms, false);
      expect(bytes(wasm.sums).equals(bytes(ref.sums))).toBe(true);
      expect(wasm.sig).toEqual(ref.sig);
    }
  });

  it("adds cached int8 vectors four at a time into int32 sums (acc8d4) with the sums of one at a time, whatever run of them a weight beyond int16, an uncached term or the end cuts", () => {
    const memory = filledMemory("int8", 1024, COUNT);
    expect(accumulateKernels(memory)?.acc8d4).toBeTypeOf("function");
    for (let run = 1; run <= 9; run++) {
      for (const cut of ["staged", "big"] as const) {
        // Runs of `run` cached terms with int16 weights (fixed-point tf-idf of counts 1–3, one
        // at the int16 limits), each ended by a staged term or a cached one beyond int16.
        const terms = Array.from({ length: 5 * (run + 1) + run }, (_, t) => {
          const ends = t % (run + 1) === run;
          const weight = ends && cut === "big" ? 40_000 + t : t % 7 === 3 ? (t % 2 === 0 ? 0x7fff : -0x8000) : Math.round(Math.log(1e6 / (t + 3)) * 256) * ((t % 3) + 1);
          return { slot: (t * 11) % COUNT, staged: ends && cut === "staged", weight };
        });
        const ref = reference("int8", 1024, terms, true);
        const wasm = project(memory, terms, true);
        expect(wasm.sums).toBeInstanceOf(Int32Array);
        expect(bytes(wasm.sums).equals(bytes(ref.sums))).toBe(true);
        expect(wasm.sig).toEqual(ref.sig);
      }
    }
  });

  /**
   * Signs `docs` in blocks as signShard does: each document's cached terms with int16 weights
   * queued, its other terms (staged, or beyond int16) first summed one by one; a full block
   * signed and the document queued again; one too large for a block summed one by one.
   */
  function signInBlocks(memory: SignMemory, docs: readonly (readonly Term[])[]): { sigs: Uint32Array[]; flushes: number; alone: number } {
    const sum = Projections.lease(memory);
    const sigs: Uint32Array[] = [];
    let flushes = 0;
    let alone = 0;
    const signed = (tag: number, words: Uint32Array) => void (sigs[tag] = words);
    try {
      expect(sum.blocks).toBe(true);
      docs.forEach((terms, tag) => {
        sum.reset(true);
        const slots = new Int32Array(terms.length);
        const weights = new Float64Array(terms.length);
        let count = 0;
        let withSums = false;
        for (const { slot, staged, weight } of terms) {
          if (!staged && weight >= -0x8000 && weight <= 0x7fff) {
            slots[count] = slot;
            weights[count++] = weight;
          } else if (staged) {
            termVector(7, 1000 + slot * 7919, sum.staging);
            sum.addStaged(weight);
            withSums = true;
          } else {
            sum.addSlot(slot, weight);
            withSums = true;
          }
        }
        if (sum.queue(tag, slots, weights, count, count, withSums)) return;
        sum.signQueued(signed);
        flushes++;
        if (sum.queue(tag, slots, weights, count, count, withSums)) return;
        alone++;
        for (let k = 0; k < count; k++) sum.addSlot(slots[k], weights[k]);
        sigs[tag] = new Uint32Array(memory.bits / 32);
        sum.signBits(sigs[tag], 0);
      });
      sum.signQueued(signed);
    } finally {
      sum.release();
    }
    return { sigs, flushes, alone };
  }

  it("signs blocks of documents (acc8block) with the bits of their int32 sums one by one, with or without sums of other terms to start from", () => {
    const memories = [64, 1024].map((bits) => filledMemory("int8", bits, COUNT));
    expect(accumulateKernels(memories[0])?.acc8block).toBeTypeOf("function");
    // The TypeScript path and float32 vectors sum document by document.
    for (const memory of [plainOf(memories[0]), filledMemory("float32", 64, 1)]) {
      const sum = Projections.lease(memory);
      expect(sum.blocks).toBe(false);
      sum.release();
    }
    fc.assert(
      fc.property(fc.array(termsArb(true), { minLength: 1, maxLength: 12 }), fc.boolean(), (docs, big) => {
        const memory = memories[big ? 1 : 0];
        const { sigs } = signInBlocks(memory, docs);
        docs.forEach((terms, tag) => expect(sigs[tag]).toEqual(reference("int8", memory.bits, terms, true).sig));
      }),
      { numRuns: 200 },
    );
  });

  it("signs a full block before queueing more, and a document larger than a block term by term, with the same bits", () => {
    const memory = filledMemory("int8", 1024, COUNT, 1);
    // A block holds about 1 MiB / 8 bytes of (vector, weight) entries: 60 documents of 3,000
    // terms fill it more than once; the last has more terms than a block holds.
    const doc = (d: number, length: number): Term[] => Array.from({ length }, (_, t) => ({ slot: (t * 13 + d) % COUNT, staged: t % 997 === 5, weight: ((t * 7919 + d) % 2001) - 1000 }));
    const docs = [...Array.from({ length: 60 }, (_, d) => doc(d, 3000)), doc(60, BLOCK_BYTES / 8 + 100)];
    const { sigs, flushes, alone } = signInBlocks(memory, docs);
    expect(flushes).toBeGreaterThanOrEqual(2);
    expect(alone).toBe(1);
    docs.forEach((terms, tag) => expect(sigs[tag]).toEqual(reference("int8", 1024, terms, true).sig));
  });

  it("signs int32 sums as it signs the same sums in float64, at the int32 extremes too", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer(), fc.constantFrom(-(2 ** 31), 2 ** 31 - 1, -1, 0, 1)), { minLength: 64, maxLength: 64 }), (xs) => {
        const a = new Uint32Array(2);
        const b = new Uint32Array(2);
        signBits(Int32Array.from(xs), a, 0);
        signBits(Float64Array.from(xs), b, 0);
        expect(a).toEqual(b);
        for (let j = 0; j < 64; j++) expect((a[j >>> 5] >>> (j & 31)) & 1).toBe(xs[j] > 0 ? 1 : 0);
      }),
      { numRuns: 200 },
    );
  });

  for (const integer of [false, true]) {
    it(`gives identical int8 ${integer ? "int32" : "float64"} sums and signature bits in WebAssembly and in TypeScript (random documents)`, () => {
      const memories = [64, 1024].map((bits) => filledMemory("int8", bits, COUNT));
      fc.assert(
        fc.property(termsArb(integer), fc.boolean(), (terms, big) => {
          const memory = memories[big ? 1 : 0];
          const ref = reference("int8", memory.bits, terms, integer);
          const wasm = project(memory, terms, integer);
          const ts = project(plainOf(memory), terms, integer);
          expect(wasm.sums).toBeInstanceOf(integer ? Int32Array : Float64Array);
          expect(bytes(wasm.sums).equals(bytes(ref.sums))).toBe(true);
          expect(bytes(ts.sums).equals(bytes(ref.sums))).toBe(true);
          expect(wasm.sig).toEqual(ref.sig);
          expect(ts.sig).toEqual(ref.sig);
        }),
        { numRuns: 200 },
      );
    });
  }

  it("int8 with integer weights: int32 sums equal the float64 ones, so both give the same bits", () => {
    const memory = filledMemory("int8", 1024, COUNT);
    fc.assert(
      fc.property(termsArb(true), (terms) => {
        const a = project(memory, terms, true);
        const b = project(memory, terms, false);
        expect(Array.from(a.sums)).toEqual(Array.from(b.sums));
        expect(a.sig).toEqual(b.sig);
      }),
      { numRuns: 50 },
    );
    // The limit keeps every int32 sum in range: |Σ w·q| ≤ 127·Σ w < 2^31.
    expect(127 * INT32_WEIGHT_LIMIT).toBeLessThan(2 ** 31);
  });

  it("starts again from zero after reset, and leaves the vectors alone", () => {
    for (const projection of ["float32", "int8"] as const) {
      const memory = filledMemory(projection, 64, 3);
      const before = memory.vectors.slice();
      const sum = Projections.lease(memory);
      sum.reset(true);
      sum.addSlot(1, 2);
      expect(sum.sums().some((x) => x !== 0)).toBe(true);
      sum.reset(false);
      expect([...sum.sums()].every((x) => x === 0)).toBe(true);
      sum.release();
      expect(memory.vectors).toEqual(before);
    }
  });
});

describe("SignMemory", () => {
  it("leases each scratch region to one holder at a time, across attachments", () => {
    for (const projection of ["float32", "int8"] as const) {
      const memory = SignMemory.create(projection, 128, 4, 2);
      const other = SignMemory.fromShared(structuredClone(memory.toShared()));
      const a = memory.lease();
      const b = other.lease();
      expect(a).not.toBeNull();
      expect(b).not.toBeNull();
      expect(a!.accOffset).not.toBe(b!.accOffset);
      expect(memory.lease()).toBeNull();
      expect(() => Projections.lease(other)).toThrow(/all 2 scratch regions/);
      a!.release();
      const c = other.lease();
      expect(c!.accOffset).toBe(a!.accOffset);
      // Regions and vectors do not overlap: writing every accumulator leaves the vectors zero.
      b!.acc.fill(1);
      c!.acc.fill(1);
      b!.staging.fill(1);
      c!.staging.fill(1);
      expect(memory.vectors.every((x) => x === 0)).toBe(true);
      expect(memory.vectors.length).toBe(4 * 128);
      expect(memory.vectors.byteLength).toBe(projection === "int8" ? 4 * 128 : 4 * 4 * 128);
    }
  });

  it("rejects bad sizes", () => {
    expect(() => SignMemory.create("int8", 0, 1, 1)).toThrow(RangeError);
    expect(() => SignMemory.create("int8", 64, 1, 0)).toThrow(RangeError);
  });
});
