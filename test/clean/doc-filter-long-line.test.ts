import fc from "fast-check";
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

describe("DocFilter on a long line with --oversize skip", () => {
  const run = (pieces: Buffer[], decide: (ordinal: number, docLine: Buffer | null) => "keep" | "remove") => {
    const seen: [number, string | null][] = [];
    const filter = new DocFilter("f.vert", 0, (o, line) => (seen.push([o, line?.toString() ?? null]), { kind: decide(o, line) }), 16, "skip");
    const out: Buffer[] = [];
    for (const p of pieces) filter.push(p, out);
    filter.end(out);
    return { out: Buffer.concat(out).toString(), seen, filter };
  };
  const long = (s: string) => s.repeat(40);
  const bytes = [
    '<doc id="a">\nw\n</doc>\n',
    `<doc id="b" t="${long("t")}">\n${long("x")}\n</doc>\n`,
    `<doc id="c">\n${long("y")}\nw\n</doc>\n</${long("z")}\n`,
  ].join("");
  // Pieces of 5 bytes: every long line arrives over several pieces.
  const pieces = Array.from({ length: Math.ceil(bytes.length / 5) }, (_, i) => Buffer.from(bytes.slice(5 * i, 5 * i + 5)));

  it("copies long lines as they arrive and decides a long <doc> line without its text", () => {
    const r = run(pieces, () => "keep");
    expect(r.out).toBe(bytes);
    expect(r.seen).toEqual([[0, '<doc id="a">'], [1, null], [2, '<doc id="c">']]);
    expect([r.filter.longLines, r.filter.firstLongLine]).toEqual([4, 4]);
  });

  it("drops the long lines of a removed document, and only those", () => {
    const r = run(pieces, (o) => (o === 0 ? "keep" : "remove"));
    expect(r.out).toBe(`<doc id="a">\nw\n</doc>\n</${long("z")}\n`);
  });
});

describe("DocFilter whatever the reads (property)", () => {
  /** Lines of documents, some longer than the limits drawn below, `<doc` lines among them. */
  const LINES = ['<doc id="a">', `<doc id="${"b".repeat(30)}">`, "</doc>", "w", "x".repeat(40), "<p>", `</${"z".repeat(30)}>`, "<document>", ""];
  const corpora = fc
    .array(fc.tuple(fc.array(fc.constantFrom(...LINES.filter((l) => !l.startsWith("<doc") && l !== "</doc>")), { maxLength: 4 }), fc.constantFrom(...LINES.slice(0, 2))), { maxLength: 6 })
    .chain((docs) => fc.tuple(fc.constant(docs), fc.array(fc.constantFrom(...LINES), { maxLength: 3 })))
    .map(([docs, stray]) => Buffer.from(docs.map(([body, open]) => [open, ...body, "</doc>"].join("\n") + "\n").join("") + stray.map((l) => `${l}\n`).join("")));
  // By ordinal alone, as clean decides: keep, remove, or mark.
  const decide = (o: number) => [{ kind: "keep" } as const, { kind: "remove" } as const, { kind: "mark", attributes: ' dup_cluster="1"' } as const][o % 3];

  function outcome(pieces: Buffer[], maxLineBytes: number, oversize: "error" | "skip") {
    const filter = new DocFilter("f.vert", 0, decide, maxLineBytes, oversize);
    const out: Buffer[] = [];
    try {
      for (const p of pieces) filter.push(p, out);
      filter.end(out);
    } catch (err) {
      return { error: (err as Error).message };
    }
    return { out: Buffer.concat(out).toString(), longLines: filter.longLines, firstLongLine: filter.firstLongLine, next: filter.nextOrdinal };
  }

  it("writes the same bytes, or stops with the same error, for any split of the input into reads", () => {
    fc.assert(
      fc.property(corpora, fc.integer({ min: 10, max: 60 }), fc.constantFrom("error", "skip") as fc.Arbitrary<"error" | "skip">, fc.array(fc.integer({ min: 1, max: 16 }), { minLength: 1, maxLength: 8 }), (bytes, max, oversize, sizes) => {
        const pieces: Buffer[] = [];
        for (let at = 0, k = 0; at < bytes.length; at += sizes[k++ % sizes.length]) pieces.push(bytes.subarray(at, at + sizes[k % sizes.length]));
        expect(outcome(pieces, max, oversize)).toEqual(outcome([bytes], max, oversize));
      }),
      { numRuns: 500 },
    );
  });
});
