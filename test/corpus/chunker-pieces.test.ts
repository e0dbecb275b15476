// Chunk boundaries must depend only on the bytes and targetBytes, never on how the stream
// delivers them: here openInput is wrapped so that the same bytes arrive in pieces of
// many different sizes.
import { afterAll, describe, expect, it, vi } from "vitest";
import { Readable } from "node:stream";
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
