import { afterEach, describe, expect, it } from "vitest";
import wabtInit from "wabt";
import { wasm as hammingBytes } from "../../src/eval/exact/hamming.wat.js";
import { WasmKernel } from "../../src/util/wasm-kernel.js";

afterEach(() => {
  delete process.env.VERTDUP_FAULT;
});

function warnings(kernel: WasmKernel, times: number): { statuses: string[]; told: string[] } {
  const told: string[] = [];
  const statuses = Array.from({ length: times }, () => kernel.report((m) => told.push(m)));
  return { statuses, told };
}

describe("WasmKernel", () => {
  it("compiles a kernel's bytes and says nothing", () => {
    const kernel = new WasmKernel("hamming", hammingBytes);
    expect(kernel.module()).not.toBeNull();
    expect(warnings(kernel, 2)).toEqual({ statuses: ["webassembly", "webassembly"], told: [] });
    expect(typeof kernel.instantiate(kernel.memory(1)).tile).toBe("function");
  });

  it("falls back on bytes that do not compile, and says so once", () => {
    const kernel = new WasmKernel("broken", Buffer.from("not a module").toString("base64"));
    expect(kernel.module()).toBeNull();
    const { statuses, told } = warnings(kernel, 3);
    expect(statuses[0]).toMatch(/^typescript \(.*WebAssembly\.Module.*\)$/);
    expect(new Set(statuses).size).toBe(1);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^warning: the WebAssembly kernel broken is unavailable \(.+\): running its slower TypeScript loop$/);
    expect(() => kernel.memory(1)).toThrow(/kernel broken is unavailable/);
  });

  it("falls back on a module that does not link with its memory", async () => {
    const wabt = await wabtInit();
    const text = wabt.parseWat("shared.wat", `(module (import "e" "m" (memory 1 1 shared)))`, { threads: true });
    const bytes = Buffer.from(text.toBinary({}).buffer).toString("base64");
    text.destroy();
    // It needs a shared memory: given a plain one, it fails to link.
    const plain = new WasmKernel("shared", bytes);
    expect(plain.module()).toBeNull();
    expect(plain.report(() => undefined)).toMatch(/^typescript \(.*memory.*\)$/i);
    expect(new WasmKernel("shared", bytes, true).module()).not.toBeNull();
  });

  it("VERTDUP_FAULT=kernel:<name> makes that kernel fail", () => {
    process.env.VERTDUP_FAULT = "kernel:hamming";
    expect(new WasmKernel("hamming", hammingBytes).report(() => undefined)).toBe("typescript (fault injected (VERTDUP_FAULT))");
    expect(new WasmKernel("other", hammingBytes).module()).not.toBeNull();
  });
});
