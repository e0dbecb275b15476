import type { Chunk } from "../../src/corpus/vertical.js";
import { afterAll, describe, expect, it, vi } from "vitest";
import { Readable } from "node:stream";
import { chunkCorpus, indexOfDocOpen } from "../../src/corpus/chunker.js";
import { VertdupError } from "../../src/core/errors.js";
import { cleanupVerts, collectChunks, encode, makeCorpus, missingPath, writeRaw, writeVert, type VertKind } from "../helpers/vert.js";

afterAll(cleanupVerts);

/** Independent reference: byte offsets of the lines that start a document. */
function docStarts(buf: Buffer): number[] {
  const out: number[] = [];
  let start = 0;
  while (start < buf.length) {
    if (buf.subarray(start, start + 4).toString("latin1") === "<doc") {
      const c = buf[start + 4];
      if (c === 0x20 || c === 0x09 || c === 0x3e || c === 0x0d) out.push(start);
    }
    const nl = buf.indexOf(0x0a, start);
    if (nl === -1) break;
    start = nl + 1;
  }
  return out;
}

/** Reference boundaries: each cut is the first doc start at least targetBytes past the chunk start. */
function expectedCuts(buf: Buffer, targetBytes: number): number[] {
  const starts = docStarts(buf);
  const cuts: number[] = [0];
  let s = 0;
  for (;;) {
    const next = starts.find((d) => d >= s + targetBytes && d > s);
    if (next === undefined) break;
    cuts.push(next);
    s = next;
  }
  return cuts;
}

function lineOf(buf: Buffer, offset: number): number {
  let n = 1;
  for (let i = 0; i < offset; i++) if (buf[i] === 0x0a) n++;
  return n;
}

function summary(chunks: Chunk[]) {
  return chunks.map((c) => ({
    index: c.index,
    file: c.file,
    firstLine: c.firstLine,
    firstDoc: c.firstDoc,
    docCount: c.docCount,
    bytes: c.bytes.toString("hex"),
  }));
}

const corpus = makeCorpus(60, 7);
const corpusBuf = Buffer.from(corpus);

describe("chunkCorpus: boundaries", () => {
  for (const target of [1, 50, 333, 1000, 4096, 1 << 20]) {
    it(`cuts just before the first <doc at or past ${target} bytes`, async () => {
      const path = writeVert(corpus);
      const chunks = await collectChunks([path], target);
      const cuts = expectedCuts(corpusBuf, target);
      expect(chunks.length).toBe(cuts.length);
      expect(Buffer.concat(chunks.map((c) => c.bytes)).equals(corpusBuf)).toBe(true);
      let offset = 0;
      let doc = 0;
      chunks.forEach((c, i) => {
        expect(c.index).toBe(i);
        expect(c.file).toBe(path);
        expect(offset).toBe(cuts[i]);
        expect(c.firstLine).toBe(lineOf(corpusBuf, offset));
        expect(c.firstDoc).toBe(doc);
        expect(c.bytes.subarray(0, 5).toString()).toBe("<doc ");
        const n = docStarts(c.bytes).length;
        expect(c.docCount).toBe(n);
        if (i < chunks.length - 1) expect(c.bytes.length).toBeGreaterThanOrEqual(target);
        offset += c.bytes.length;
        doc += n;
      });
      expect(doc).toBe(60);
    });
  }

  it("gives identical chunks for .vert, .vert.gz and .vert.zst of the same bytes", async () => {
    const big = makeCorpus(400, 3);
    for (const target of [1, 700, 5000, 1 << 20]) {
      const results = await Promise.all(
        (["plain", "gz", "zst"] as VertKind[]).map(async (k) => {
          const p = writeVert(big, k, `same-${target}`);
          return summary(await collectChunks([p], target)).map((c) => ({ ...c, file: "" }));
        }),
      );
      expect(results[1]).toEqual(results[0]);
      expect(results[2]).toEqual(results[0]);
      expect(results[0].length).toBe(expectedCuts(Buffer.from(big), target).length);
    }
  });

  it("does not cut at <document>, <doc_meta> or <doc/> lines, nor at <doc inside a line", async () => {
    const text =
      '<doc id="a">\nx\n<document>\n</document>\n<doc_meta>\ny <doc id="z">\n</doc>\n<doc\tid="b">\nz\n</doc>\n<doc>\nw\n</doc>\n';
    const path = writeVert(text);
    const chunks = await collectChunks([path], 1);
    expect(chunks.map((c) => c.bytes.toString())).toEqual([
      '<doc id="a">\nx\n<document>\n</document>\n<doc_meta>\ny <doc id="z">\n</doc>\n',
      '<doc\tid="b">\nz\n</doc>\n',
      "<doc>\nw\n</doc>\n",
    ]);
    expect(chunks.map((c) => [c.firstLine, c.firstDoc, c.docCount])).toEqual([
      [1, 0, 1],
      [8, 1, 1],
      [11, 2, 1],
    ]);
  });

  it("puts leading lines before the first <doc in a chunk of their own (cut before <doc)", async () => {
    const text = '<corpus>\n\n<doc id="a">\nx\n</doc>\n<doc id="b">\ny\n</doc>\n</corpus>\n';
    const chunks = await collectChunks([writeVert(text)], 1);
    expect(chunks.map((c) => c.bytes.toString())).toEqual([
      "<corpus>\n\n",
      '<doc id="a">\nx\n</doc>\n',
      '<doc id="b">\ny\n</doc>\n</corpus>\n',
    ]);
    expect(chunks.map((c) => [c.firstLine, c.firstDoc, c.docCount])).toEqual([
      [1, 0, 0],
      [3, 0, 1],
      [6, 1, 1],
    ]);
    const whole = await collectChunks([writeVert(text)], 1 << 20);
    expect(whole.map((c) => [c.firstLine, c.firstDoc, c.docCount])).toEqual([[1, 0, 2]]);
  });

  it("handles a last line without a final newline", async () => {
    const text = '<doc id="a">\nx\n</doc>\n<doc id="b">\ny\n</doc>';
    const chunks = await collectChunks([writeVert(text)], 1);
    expect(chunks.map((c) => c.bytes.toString())).toEqual(['<doc id="a">\nx\n</doc>\n', '<doc id="b">\ny\n</doc>']);
  });

  it("counts a document that starts right after a UTF-8 byte-order mark", async () => {
    const text = '\ufeff<doc id="a">\nx\n</doc>\n<doc id="b">\ny\n</doc>\n<doc id="c">\nz\n</doc>\n';
    const chunks = await collectChunks([writeVert(text)], 1);
    expect(chunks.map((c) => [c.firstLine, c.firstDoc, c.docCount])).toEqual([
      [1, 0, 1],
      [4, 1, 1],
      [7, 2, 1],
    ]);
  });
});

describe("indexOfDocOpen", () => {
  it("finds what buf.indexOf of a newline and <doc finds, from every offset", () => {
    // Random text over the needle's bytes and a few others, dense in near misses ("\ndoc", "<doc", "\n<do").
    let seed = 7;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) / (1 << 24);
    const pieces = ["\n", "<", "d", "doc", "\n<doc", "<doc", "\ndoc", "\n<do", "x", " "];
    const needle = Buffer.from("\n<doc");
    let found = 0;
    for (let round = 0; round < 200; round++) {
      const buf = Buffer.from(Array.from({ length: 1 + Math.floor(random() * 20) }, () => pieces[Math.floor(random() * pieces.length)]).join(""));
      for (let from = -2; from <= buf.length + 1; from++) {
        const want = buf.indexOf(needle, Math.max(0, from));
        expect(indexOfDocOpen(buf, from)).toBe(want);
        if (want !== -1) found++;
      }
    }
    expect(found).toBeGreaterThan(100);
  });
});

describe("chunkCorpus: buffers", () => {
  it("gives each chunk a buffer of its own, transferable whole", async () => {
    const big = makeCorpus(400, 3);
    for (const kind of ["plain", "zst"] as VertKind[]) {
      const chunks = await collectChunks([writeVert(big, kind, `own-${kind}`)], 700);
      expect(chunks.length).toBeGreaterThan(10);
      const memory = new Set<ArrayBufferLike>();
      for (const c of chunks) {
        expect(c.bytes.byteOffset).toBe(0);
        expect(c.bytes.byteLength).toBe(c.bytes.buffer.byteLength);
        memory.add(c.bytes.buffer);
      }
      expect(memory.size).toBe(chunks.length);
    }
  });
});

describe("chunkCorpus: several inputs", () => {
  it("never spans files, restarts line numbers and continues doc ordinals and chunk indexes", async () => {
    const a = makeCorpus(10, 1, "a");
    const b = makeCorpus(7, 2, "b");
    const c = makeCorpus(5, 3, "c");
    const paths = [writeVert(a, "plain"), writeVert(b, "gz"), writeVert(c, "zst")];
    const chunks = await collectChunks(paths, 200);
    const perFile = paths.map((p) => chunks.filter((ch) => ch.file === p));
    expect(Buffer.concat(perFile[0].map((ch) => ch.bytes)).toString()).toBe(a);
    expect(Buffer.concat(perFile[1].map((ch) => ch.bytes)).toString()).toBe(b);
    expect(Buffer.concat(perFile[2].map((ch) => ch.bytes)).toString()).toBe(c);
    expect(chunks.map((ch) => ch.index)).toEqual(chunks.map((_, i) => i));
    for (const group of perFile) {
      expect(group.length).toBeGreaterThan(1);
      expect(group[0].firstLine).toBe(1);
    }
    // Chunks come in input order.
    expect(chunks.map((ch) => paths.indexOf(ch.file))).toEqual([...chunks.map((ch) => paths.indexOf(ch.file))].sort());
    let doc = 0;
    for (const ch of chunks) {
      expect(ch.firstDoc).toBe(doc);
      doc += ch.docCount;
    }
    expect(doc).toBe(22);
    expect(perFile[1][0].firstDoc).toBe(10);
    expect(perFile[2][0].firstDoc).toBe(17);
  });

  it("reads standard input for `-`", async () => {
    const text = makeCorpus(6, 9);
    const spy = vi.spyOn(process, "stdin", "get").mockReturnValue(Readable.from([Buffer.from(text)]) as typeof process.stdin);
    try {
      const path = writeVert(makeCorpus(2, 4));
      const chunks = await collectChunks([path, "-"], 1);
      const fromStdin = chunks.filter((c) => c.file === "-");
      expect(fromStdin.length).toBe(6);
      expect(Buffer.concat(fromStdin.map((c) => c.bytes)).toString()).toBe(text);
      expect(fromStdin[0].firstDoc).toBe(2);
      expect(fromStdin[0].firstLine).toBe(1);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("chunkCorpus: bad inputs", () => {
  async function failure(paths: string[], target = 100): Promise<Error> {
    try {
      await collectChunks(paths, target);
    } catch (err) {
      return err as Error;
    }
    throw new Error("expected chunkCorpus to fail");
  }

  it("rejects an empty plain file, naming it", async () => {
    const ok = writeVert(makeCorpus(1));
    const empty = writeVert("");
    const err = await failure([ok, empty]);
    expect(err).toBeInstanceOf(VertdupError);
    expect(err.message).toBe(`${empty}: input is empty`);
  });

  it("rejects an empty .gz and an empty .zst (valid streams of no bytes)", async () => {
    for (const kind of ["gz", "zst"] as VertKind[]) {
      const empty = writeVert("", kind);
      const err = await failure([empty]);
      expect(err).toBeInstanceOf(VertdupError);
      expect(err.message).toBe(`${empty}: input is empty`);
    }
  });

  it("rejects empty standard input as <stdin>", async () => {
    const spy = vi.spyOn(process, "stdin", "get").mockReturnValue(Readable.from([]) as typeof process.stdin);
    try {
      const err = await failure(["-"]);
      expect(err.message).toBe("<stdin>: input is empty");
    } finally {
      spy.mockRestore();
    }
  });

  it("reports a missing file with its name", async () => {
    const path = missingPath();
    const err = await failure([path]);
    expect(err).toBeInstanceOf(VertdupError);
    expect(err.message.startsWith(`${path}: `)).toBe(true);
    expect(err.message).toContain("ENOENT");
  });

  it("reports a truncated .gz with its name", async () => {
    const full = encode(makeCorpus(200, 5), "gz");
    for (const cut of [full.length - 4, Math.floor(full.length / 2), 15]) {
      const path = writeRaw(full.subarray(0, cut), "trunc.vert.gz");
      const err = await failure([path], 1000);
      expect(err).toBeInstanceOf(VertdupError);
      expect(err.message.startsWith(`${path}: gzip stream is truncated or corrupt (`)).toBe(true);
    }
  });

  it("reports a truncated .zst with its name", async () => {
    const full = encode(makeCorpus(200, 5), "zst");
    for (const cut of [full.length - 1, Math.floor(full.length / 2), 8]) {
      const path = writeRaw(full.subarray(0, cut), "trunc.vert.zst");
      const err = await failure([path], 1000);
      expect(err).toBeInstanceOf(VertdupError);
      expect(err.message.startsWith(`${path}: zstd stream is truncated or corrupt (`)).toBe(true);
    }
  });

  it("reports a corrupt (not compressed) .gz and .zst with their names", async () => {
    for (const [name, kind] of [
      ["bad.vert.gz", "gzip"],
      ["bad.vert.zst", "zstd"],
    ]) {
      const path = writeRaw(Buffer.from('<doc id="a">\nx\n</doc>\n'), name);
      const err = await failure([path]);
      expect(err.message.startsWith(`${path}: ${kind} stream is truncated or corrupt (`)).toBe(true);
    }
  });

  it("yields the chunks of earlier files before failing on a later one", async () => {
    const ok = writeVert(makeCorpus(3));
    const bad = writeRaw(encode(makeCorpus(50), "gz").subarray(0, 40), "t.vert.gz");
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const c of chunkCorpus([ok, bad], 1)) seen.push(c.file);
      })(),
    ).rejects.toThrow(bad);
    expect(seen).toEqual([ok, ok, ok]);
  });
});
