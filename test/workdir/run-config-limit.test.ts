import { describe, expect, it } from "vitest";
import { fingerprint, type RunConfig } from "../../src/workdir/run-config.js";
import { DEFAULT_PREPARE } from "../../src/core/options.js";

describe("run configuration", () => {
  const config: RunConfig = { inputs: [{ path: "a.vert", size: 10, mtimeMs: 1 }], prepare: DEFAULT_PREPARE, chunkBytes: 1 << 20 };

  it("a resume may change --max-doc-bytes (it changes no file), not the chunk size", () => {
    expect(fingerprint({ ...config, maxDocBytes: 1 << 20 })).toBe(fingerprint(config));
    expect(fingerprint({ ...config, maxDocBytes: 1 << 20 })).toBe(fingerprint({ ...config, maxDocBytes: 1 << 30 }));
    expect(fingerprint({ ...config, chunkBytes: 1 << 21 })).not.toBe(fingerprint(config));
  });

  it("with --oversize skip, the limit decides which documents have content: a resume keeps both", () => {
    const skip: RunConfig = { ...config, maxDocBytes: 1 << 20, oversize: "skip" };
    expect(fingerprint(skip)).not.toBe(fingerprint({ ...config, maxDocBytes: 1 << 20 }));
    expect(fingerprint(skip)).not.toBe(fingerprint({ ...skip, maxDocBytes: 1 << 30 }));
    expect(fingerprint(skip)).toBe(fingerprint({ ...skip }));
  });
});
