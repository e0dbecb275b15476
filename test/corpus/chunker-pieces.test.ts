// Chunk boundaries must depend only on the bytes and targetBytes, never on how the stream
// delivers them: here openInput is wrapped so that the same bytes arrive in pieces of
// many different sizes.
import fc from "fast-check";
import { afterAll, describe, expect, it, vi } from "vitest";
import { Readable } from "node:stream";
import { chunkCorpus, cutCorpus, readLimits, type ReadLimits } from "../../src/corpus/chunker.js";
import { cleanupVerts, collectChunks, makeCorpus, readCorpus, rng, writeVert, type VertKind } from "../helpers/vert.js";

const piecing: { sizes: (() => number) | null; yielded: number } = { sizes: null, yielded: 0 };

vi.mock("../../src/corpus/open-input.js", async (importOriginal) => {
  const orig = await importOriginal<typeof import("../../src/corpus/open-input.js")>();
  return {
    ...orig,
    openInput(path: string, highWaterMark?: number): Readable {
      const inner = orig.openInput(path, highWaterMark);
      const next = piecing.sizes;
      if (next === null) return inner;
      async function* repiece(): AsyncGenerator<Buffer> {
        let carry = Buffer.alloc(0);
        for await (const piece of inner as AsyncIterable<Buffer>) {
          carry = Buffer.concat([carry, piece]);
          for (;;) {
            const n = next!();
            if (carry.length < n) break;
            piecing.yielded++;
            yield carry.subarray(0, n);
            carry = carry.subarray(n);
          }
        }
        if (carry.length > 0) yield carry;
      }
      return Readable.from(repiece(), { objectMode: false });
    },
  };
});

afterAll(cleanupVerts);

function view(chunks: Awaited<ReturnType<typeof collectChunks>>) {
  return chunks.map((c) => [c.index, c.file, c.firstLine, c.firstDoc, c.docCount, c.bytes.toString("hex")]);
}

describe("chunk boundaries do not depend on stream piece sizes", () => {
  const text = makeCorpus(80, 11);
  const schemes: [string, () => (() => number) | null][] = [
    ["as read", () => null],
    ["1 byte", () => () => 1],
    ["3 bytes", () => () => 3],
    ["5 bytes (length of \\n<doc)", () => () => 5],
    ["64 bytes", () => () => 64],
    ["random 1..40", () => {
      const r = rng(42);
      return () => 1 + Math.floor(r() * 40);
    }],
    ["random 1..3000", () => {
      const r = rng(7);
      return () => 1 + Math.floor(r() * 3000);
    }],
  ];

  for (const kind of ["plain", "gz", "zst"] as VertKind[]) {
    it(`${kind}: same chunks for every piecing and several targets`, async () => {
      const path = writeVert(text, kind);
      for (const target of [1, 97, 512, 2000]) {
        piecing.sizes = null;
        const reference = view(await collectChunks([path], target));
        expect(reference.length).toBeGreaterThan(1);
        for (const [, make] of schemes) {
          piecing.sizes = make();
          expect(view(await collectChunks([path], target))).toEqual(reference);
        }
      }
      piecing.sizes = null;
    });
  }

  it("documents parsed from tiny pieces equal those parsed from whole reads", async () => {
    const path = writeVert(text, "gz");
    piecing.sizes = null;
    const whole = await readCorpus([path], 1 << 20);
    piecing.sizes = () => 2;
    piecing.yielded = 0;
    const tiny = await readCorpus([path], 150);
    // The wrapper really was used by the chunker.
    expect(piecing.yielded).toBeGreaterThan(Buffer.byteLength(text) / 2 - 2);
    piecing.sizes = null;
    expect(tiny.docs).toEqual(whole.docs);
    expect(tiny.warnings).toEqual(whole.warnings);
    expect(whole.docs.length).toBe(80);
  });
});

describe("chunk boundaries do not depend on stream piece sizes (property)", () => {
  /** Lines where a document start is, nearly is, or is not (tags alike, CR, `<doc` inside a line). */
  const LINES = ['<doc id="d">', "<doc>", '<doc\tid="t">', "<doc\r", "</doc>", "<document>", "<doc_meta>", "<doc/>", "<p>", "</p>", "<s>", "<g/>",
    "word\tlemma\ttag", "a", "x <doc y", '<doc id="ü">', "žluťoučký kůň", "", "\ufeff<doc>", "<"];
  const corpora = fc
    .record({
      bom: fc.boolean(),
      first: fc.oneof({ arbitrary: fc.constant('<doc id="first">'), weight: 5 }, fc.constantFrom(...LINES)),
      lines: fc.array(fc.constantFrom(...LINES), { minLength: 10, maxLength: 80 }),
      finalNewline: fc.boolean(),
    })
    .map(({ bom, first, lines, finalNewline }) => Buffer.from(`${bom ? "\ufeff" : ""}${[first, ...lines].join("\n")}${finalNewline ? "\n" : ""}`));
  const limits = fc.option(
    fc.record({ maxDocBytes: fc.integer({ min: 8, max: 200 }), oversize: fc.constantFrom("error", "skip") as fc.Arbitrary<"error" | "skip"> }).map(({ maxDocBytes, oversize }) => readLimits(maxDocBytes, oversize)),
    { nil: undefined },
  );

  /** The chunks of a file, or the error that stopped the reading. */
  async function outcome(path: string, target: number, limits?: ReadLimits): Promise<unknown> {
    const chunks = [];
    try {
      for await (const c of chunkCorpus([path], target, limits)) chunks.push([c.index, c.firstLine, c.firstDoc, c.docCount, c.skipped ?? false, c.bytes.toString("hex")]);
    } catch (err) {
      return { error: (err as Error).message };
    }
    return chunks;
  }

  it("keeps a document of exactly --max-doc-bytes when the next <doc arrives a byte at a time", async () => {
    // Each `<doc id="d">` line is a 13-byte document; read byte by byte, the next one's start
    // was not yet known when the document's 14th byte arrived, and it was skipped (or an error).
    const path = writeVert(Array(4).fill('<doc id="d">\n').join(""));
    for (const oversize of ["skip", "error"] as const) {
      piecing.sizes = null;
      const whole = await outcome(path, 1, readLimits(13, oversize));
      piecing.sizes = () => 1;
      expect(await outcome(path, 1, readLimits(13, oversize))).toEqual(whole);
      piecing.sizes = null;
      expect(whole).toHaveLength(4);
      expect((whole as unknown[][]).every((c) => c[4] === false)).toBe(true);
    }
  });

  /** `read` with the file's reads cut into pieces of `sizes` in turn (the reference reads whole). */
  async function inReadsOf<T>(sizes: readonly number[], read: () => Promise<T>): Promise<T> {
    let at = 0;
    piecing.sizes = () => sizes[at++ % sizes.length];
    try {
      return await read();
    } finally {
      piecing.sizes = null;
    }
  }

  it("gives the same chunks, or the same error, for any split of the same bytes into reads", async () => {
    await fc.assert(
      fc.asyncProperty(corpora, fc.integer({ min: 1, max: 120 }), limits, fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 10 }), async (bytes, target, limits, sizes) => {
        const path = writeVert(bytes);
        piecing.sizes = null;
        const reference = await outcome(path, target, limits);
        expect(await inReadsOf(sizes, () => outcome(path, target, limits))).toEqual(reference);
        // Without a limit that drops bytes, the chunks are the file, cut.
        if (Array.isArray(reference) && limits?.oversize !== "skip") {
          expect(Buffer.from(reference.map((c) => c[5]).join(""), "hex").equals(bytes)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  /**
   * cutCorpus's chunks as chunkCorpus's `outcome` gives them: the first lines it leaves to
   * the workers counted here, from the chunks before (what the chain does), also for its
   * `lineBefore`; the ordinals and document counts, which it never gives, left out.
   */
  async function cutOutcome(path: string, target: number, limits?: ReadLimits): Promise<unknown> {
    const chunks = [];
    let line = 1;
    try {
      for await (const c of cutCorpus([path], target, limits ?? readLimits(), async () => line)) {
        const first = c.firstLine ?? line;
        chunks.push([c.index, first, c.skipped ?? false, c.bytes.toString("hex")]);
        line = first + c.bytes.filter((b) => b === 0x0a).length;
      }
    } catch (err) {
      return { error: (err as Error).message };
    }
    return chunks;
  }

  it("cuts without counting (cutCorpus) where chunkCorpus cuts, with the same first lines and errors, for any split into reads", async () => {
    await fc.assert(
      fc.asyncProperty(corpora, fc.integer({ min: 1, max: 120 }), limits, fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 10 }), async (bytes, target, limits, sizes) => {
        const path = writeVert(bytes);
        piecing.sizes = null;
        const reference = await outcome(path, target, limits);
        const cut = await inReadsOf(sizes, () => cutOutcome(path, target, limits));
        expect(cut).toEqual(Array.isArray(reference) ? reference.map(([index, firstLine, , , skipped, hex]) => [index, firstLine, skipped, hex]) : reference);
      }),
      { numRuns: 200 },
    );
  });
});
