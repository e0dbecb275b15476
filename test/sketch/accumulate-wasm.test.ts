import { describe, expect, it } from "vitest";
import { WasmAccumulator } from "../../src/sketch/accumulate-wasm.js";
import { accumulate } from "../../src/sketch/signature.js";
import { termVector } from "../../src/sketch/random-vectors.js";

describe("WasmAccumulator", () => {
  it("gives bit-identical float64 accumulators to the TypeScript accumulate", () => {
    for (const bits of [64, 1024]) {
      const wasm = WasmAccumulator.create(bits);
      expect(wasm).not.toBeNull();
      const acc = new Float64Array(bits);
      const v = new Float32Array(bits);
      wasm!.reset();
      for (let t = 0; t < 300; t++) {
        termVector(7, 1000 + t * 7919, v);
        // Weights like tf · idf: odd magnitudes that make rounding visible.
        const weight = ((t % 5) + 1) * Math.log(1e6 / (t + 3));
        accumulate(acc, v, weight);
        if (t % 2 === 0) wasm!.add(v, weight);
        else {
          termVector(7, 1000 + t * 7919, wasm!.staging);
          wasm!.addStaged(weight);
        }
      }
      expect(Buffer.from(wasm!.acc.buffer, 0, bits * 8).equals(Buffer.from(acc.buffer))).toBe(true);
    }
  });

  it("starts again from zero after reset", () => {
    const wasm = WasmAccumulator.create(64)!;
    wasm.add(new Float32Array(64).fill(1), 2);
    wasm.reset();
    expect([...wasm.acc].every((x) => x === 0)).toBe(true);
  });
});
