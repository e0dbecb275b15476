// A giant document, a file without <doc> and a decompression bomb must neither take time
// growing faster than their size nor memory growing with it.
import { afterAll, describe, expect, it, vi } from "vitest";
import { Readable } from "node:stream";
import { chunkCorpus, type ReadLimits } from "../../src/corpus/chunker.js";
import { cleanupVerts, collectChunks, writeRaw, writeVert } from "../helpers/vert.js";
import { bomb } from "./bomb.js";

afterAll(cleanupVerts);

const MiB = 1 << 20;

async function drain(inputs: string[], targetBytes: number, limits?: ReadLimits): Promise<number> {
  let n = 0;
  for await (const c of chunkCorpus(inputs, targetBytes, limits)) n += c.bytes.length;
  return n;
}

/** Standard input that yields `pieces` then ends, counting the pieces taken. */
function fakeStdin(pieces: Generator<Buffer>) {
  const seen = { taken: 0 };
  const spy = vi.spyOn(process, "stdin", "get").mockReturnValue(
    Readable.from(
      (function* () {
        for (const p of pieces) {
          seen.taken++;
          yield p;
        }
      })(),
      { objectMode: false },
    ) as typeof process.stdin,
  );
  return { seen, restore: () => spy.mockRestore() };
}

function* repeat(first: string, piece: string, count: number): Generator<Buffer> {
  yield Buffer.from(first);
  const p = Buffer.from(piece.repeat(Math.ceil(MiB / piece.length)));
  for (let i = 0; i < count; i++) yield p;
}

describe("the chunker's work per byte stays constant", () => {
  it("copies a 48 MB single-line document a bounded number of times", async () => {
    const size = 48 * MiB;
    const path = writeVert(Buffer.concat([Buffer.from('<doc id="a">\n'), Buffer.alloc(size, "x"), Buffer.from("\n</doc>\n")]));
    const concat = vi.spyOn(Buffer, "concat");
    try {
      const total = await drain([path], MiB);
      expect(total).toBe(size + 21);
      const copied = concat.mock.results.reduce((n, r) => n + (r.value as Buffer).length, 0);
      // Once, into its chunk (and a few bytes at each piece boundary).
      expect(copied).toBeLessThanOrEqual(size + MiB);
    } finally {
      concat.mockRestore();
    }
  });
});

describe("errors known at the first lines are reported at once", () => {
  const cases: [string, Generator<Buffer>, RegExp][] = [
    ["a file of tokens without <doc>", repeat("word\n", "word\n", 64), /^<stdin>:1: token outside <doc>$/],
    ["a first line of gigabytes, never ended", repeat("x", "x", 64), /^<stdin>:1: token outside <doc>$/],
    ["a token after empty lines and a byte-order mark", repeat("\ufeff\n\n<3\n", "w\n", 64), /^<stdin>:3: token outside <doc>$/],
    ["CRLF line ends", repeat("word\r\n", "word\r\n", 64), /^<stdin>:1: CRLF line end/],
  ];
  for (const [what, pieces, message] of cases) {
    it(what, async () => {
      const stdin = fakeStdin(pieces);
      try {
        await expect(drain(["-"], MiB)).rejects.toThrow(message);
        expect(stdin.seen.taken).toBeLessThanOrEqual(4);
      } finally {
        stdin.restore();
      }
    });
  }

  it("lets tags and a byte-order mark before the first <doc> through", async () => {
    const path = writeVert('\ufeff\n<corpus>\n<doc id="a">\nw\n</doc>\n</corpus>\n');
    const chunks = await collectChunks([path], MiB);
    expect(chunks.map((c) => c.docCount)).toEqual([1]);
  });
});

describe("--max-doc-bytes", () => {
  const small = '<doc id="a">\nw\n</doc>\n';
  const big = `<doc id="b">\n${"word\n".repeat(400)}</doc>\n`;

  it("stops at a document over the limit, naming its <doc> line", async () => {
    for (const target of [1, 64, MiB]) {
      const path = writeVert(small + big + small, "plain", "long");
      await expect(drain([path], target, { maxDocBytes: 1000 })).rejects.toThrow(/long\.vert:4: more than 1000 bytes from this line to the next <doc>/);
      const zst = writeVert(small + small + big, "zst", "long");
      await expect(drain([zst], target, { maxDocBytes: 1000 })).rejects.toThrow(/long\.vert\.zst:7: more than 1000 bytes/);
    }
  });

  it("accepts a document of exactly the limit", async () => {
    const path = writeVert(small + big + small);
    await expect(drain([path], 64, { maxDocBytes: Buffer.byteLength(big) })).resolves.toBe(Buffer.byteLength(small + big + small));
  });

  it("stops a zstd bomb inside one document after reading about the limit", async () => {
    const path = writeRaw(bomb("zst", '<doc id="a">\n', 4), "bomb.vert.zst");
    await expect(drain([path], MiB, { maxDocBytes: 8 * MiB })).rejects.toThrow(/bomb\.vert\.zst:1: more than 8388608 bytes/);
  });
});
