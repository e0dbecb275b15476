import { describe, expect, it, vi } from "vitest";
import { DocFilter } from "../../src/clean/doc-filter.js";

const MiB = 1 << 20;

describe("DocFilter on a long line", () => {
  const keep = () => ({ kind: "keep" }) as const;

  it("joins the pieces of a 32 MB line once, not on every piece", () => {
    const filter = new DocFilter("f.vert", 0, keep, 64 * MiB);
    const out: Buffer[] = [];
    const concat = vi.spyOn(Buffer, "concat");
    try {
      filter.push(Buffer.from('<doc id="a">\n'), out);
      for (let i = 0; i < 32; i++) filter.push(Buffer.alloc(MiB, "x"), out);
      filter.push(Buffer.from("\n</doc>\n"), out);
      filter.end(out);
      const copied = concat.mock.results.reduce((n, r) => n + (r.value as Buffer).length, 0);
      expect(copied).toBeLessThanOrEqual(33 * MiB);
    } finally {
      concat.mockRestore();
    }
    expect(Buffer.concat(out).length).toBe(13 + 32 * MiB + 8);
  });

  it("stops at a line longer than the limit, naming it, before holding more", () => {
    const filter = new DocFilter("f.vert", 0, keep, 4 * MiB);
    const out: Buffer[] = [];
    filter.push(Buffer.from('<doc id="a">\nw\n'), out);
    for (let i = 0; i < 4; i++) filter.push(Buffer.alloc(MiB, "x"), out);
    expect(() => filter.push(Buffer.alloc(1, "x"), out)).toThrow("f.vert:3: line longer than --max-doc-bytes (4194304 bytes)");
  });
});
