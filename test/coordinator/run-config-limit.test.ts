import { describe, expect, it } from "vitest";
import { fingerprint, type RunConfig } from "../../src/coordinator/run-config.js";
import { DEFAULT_PREPARE } from "../../src/options.js";

describe("run configuration", () => {
  const config: RunConfig = { inputs: [{ path: "a.vert", size: 10, mtimeMs: 1 }], prepare: DEFAULT_PREPARE, chunkBytes: 1 << 20 };

  it("a resume may change --max-doc-bytes (it changes no file), not the chunk size", () => {
    expect(fingerprint({ ...config, maxDocBytes: 1 << 20 })).toBe(fingerprint(config));
    expect(fingerprint({ ...config, maxDocBytes: 1 << 20 })).toBe(fingerprint({ ...config, maxDocBytes: 1 << 30 }));
    expect(fingerprint({ ...config, chunkBytes: 1 << 21 })).not.toBe(fingerprint(config));
  });
});
