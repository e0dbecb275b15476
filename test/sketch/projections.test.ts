import { describe, expect, it } from "vitest";
import { accumulateKernel } from "../../src/sketch/accumulate-wasm.js";
import { Projections } from "../../src/sketch/projections.js";
import { accumulate } from "../../src/sketch/signature.js";
import { SignMemory } from "../../src/sketch/sign-memory.js";
import { termVector } from "../../src/sketch/random-vectors.js";

/** A sign memory of `count` vectors filled with termVector(7, term(s), …). */
function filledMemory(bits: number, count: number, regions = 2): SignMemory {
  const memory = SignMemory.create(bits, count, regions);
  for (let s = 0; s < count; s++) termVector(7, 1000 + s * 7919, memory.vectors.subarray(s * bits, (s + 1) * bits));
  return memory;
}

/** Sums 300 weighted terms, alternating cached slots and staged vectors; returns the accumulators. */
function sumTerms(memory: SignMemory, count: number): Float64Array {
  const sum = Projections.lease(memory);
  try {
    sum.reset();
    for (let t = 0; t < 300; t++) {
      // Weights like tf · idf: odd magnitudes that make rounding visible.
      const weight = ((t % 5) + 1) * Math.log(1e6 / (t + 3));
      if (t % 2 === 0) sum.addSlot(t % count, weight);
      else {
        termVector(7, 1000 + (t % count) * 7919, sum.staging);
        sum.addStaged(weight);
      }
    }
    return Float64Array.from(sum.acc);
  } finally {
    sum.release();
  }
}

describe("Projections", () => {
  it("gives bit-identical float64 accumulators in WebAssembly and in TypeScript", () => {
    for (const bits of [64, 1024]) {
      const count = 37;
      const memory = filledMemory(bits, count);
      expect(memory.memory).not.toBeNull();
      expect(accumulateKernel(memory)).not.toBeNull();
      const reference = new Float64Array(bits);
      const v = new Float32Array(bits);
      for (let t = 0; t < 300; t++) {
        termVector(7, 1000 + (t % count) * 7919, v);
        accumulate(reference, v, ((t % 5) + 1) * Math.log(1e6 / (t + 3)));
      }
      const wasm = sumTerms(memory, count);
      // The same memory without its WebAssembly object takes the TypeScript path.
      const plain = SignMemory.fromShared({ ...memory.toShared(), memory: null });
      expect(accumulateKernel(plain)).toBeNull();
      const ts = sumTerms(plain, count);
      expect(Buffer.from(wasm.buffer).equals(Buffer.from(reference.buffer))).toBe(true);
      expect(Buffer.from(ts.buffer).equals(Buffer.from(reference.buffer))).toBe(true);
    }
  });

  it("starts again from zero after reset, and leaves the vectors alone", () => {
    const memory = filledMemory(64, 3);
    const before = Float32Array.from(memory.vectors);
    const sum = Projections.lease(memory);
    sum.addSlot(1, 2);
    expect(sum.acc.some((x) => x !== 0)).toBe(true);
    sum.reset();
    expect([...sum.acc].every((x) => x === 0)).toBe(true);
    sum.release();
    expect(memory.vectors).toEqual(before);
  });
});

describe("SignMemory", () => {
  it("leases each scratch region to one holder at a time, across attachments", () => {
    const memory = SignMemory.create(128, 4, 2);
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
  });

  it("rejects bad sizes", () => {
    expect(() => SignMemory.create(0, 1, 1)).toThrow(RangeError);
    expect(() => SignMemory.create(64, 1, 0)).toThrow(RangeError);
  });
});
