import { afterAll, describe, expect, it, vi } from "vitest";
import { Readable } from "node:stream";
import { chmodSync } from "node:fs";
import { checkReadable, compressionOf, describeStreamError, displayName, openInput } from "../../src/corpus/open-input.js";
import { VertdupError } from "../../src/core/errors.js";
import { bomb, BOMB_BLOCK } from "./bomb.js";
import { cleanupVerts, encode, makeCorpus, missingPath, writeRaw, writeVert, type VertKind } from "../helpers/vert.js";

afterAll(cleanupVerts);

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of stream as AsyncIterable<Buffer>) parts.push(p);
  return Buffer.concat(parts);
}

describe("compressionOf / displayName", () => {
  it("tells compression by the file name", () => {
    expect(compressionOf("a.vert")).toBe("none");
    expect(compressionOf("a.vert.gz")).toBe("gzip");
    expect(compressionOf("a.vert.zst")).toBe("zstd");
    expect(compressionOf("a.vert.zstd")).toBe("zstd");
    expect(compressionOf("-")).toBe("none");
    expect(compressionOf("gz.vert")).toBe("none");
  });

  it("names standard input <stdin>", () => {
    expect(displayName("-")).toBe("<stdin>");
    expect(displayName("x/y.vert")).toBe("x/y.vert");
  });
});

describe("openInput", () => {
  const text = makeCorpus(30, 2);
  for (const kind of ["plain", "gz", "zst"] as VertKind[]) {
    it(`returns the decompressed bytes of a ${kind} file`, async () => {
      const path = writeVert(text, kind);
      expect((await readAll(openInput(path))).toString()).toBe(text);
      expect((await readAll(openInput(path, 16))).toString()).toBe(text);
    });
  }

  it("reads concatenated gzip members and zstd frames as one stream", async () => {
    const a = "<doc id=\"a\">\nx\n</doc>\n";
    const b = "<doc id=\"b\">\ny\n</doc>\n";
    const gz = writeRaw(Buffer.concat([encode(a, "gz"), encode(b, "gz")]), "multi.vert.gz");
    const zst = writeRaw(Buffer.concat([encode(a, "zst"), encode(b, "zst")]), "multi.vert.zst");
    expect((await readAll(openInput(gz))).toString()).toBe(a + b);
    expect((await readAll(openInput(zst))).toString()).toBe(a + b);
  });

  it("reads standard input for `-`", async () => {
    const spy = vi
      .spyOn(process, "stdin", "get")
      .mockReturnValue(Readable.from([Buffer.from("ab"), Buffer.from("c\n")]) as typeof process.stdin);
    try {
      expect((await readAll(openInput("-"))).toString()).toBe("abc\n");
    } finally {
      spy.mockRestore();
    }
  });

  it("fails on a truncated .gz and .zst", async () => {
    for (const kind of ["gz", "zst"] as VertKind[]) {
      const full = encode(text, kind);
      const path = writeRaw(full.subarray(0, full.length - 3), `t${suffix(kind)}`);
      await expect(readAll(openInput(path))).rejects.toThrow();
    }
  });

  it("fails on a missing compressed file (the read error reaches the decoder)", async () => {
    await expect(readAll(openInput(missingPath("x.vert.gz")))).rejects.toThrow(/ENOENT/);
    await expect(readAll(openInput(missingPath("x.vert.zst")))).rejects.toThrow(/ENOENT/);
    await expect(readAll(openInput(missingPath("x.vert")))).rejects.toThrow(/ENOENT/);
  });
});

function suffix(kind: VertKind): string {
  return kind === "gz" ? ".vert.gz" : kind === "zst" ? ".vert.zst" : ".vert";
}

describe("checkReadable", () => {
  it("accepts an existing file and stdin", async () => {
    await expect(checkReadable(writeVert("x\n"))).resolves.toBeUndefined();
    await expect(checkReadable("-")).resolves.toBeUndefined();
  });

  it("rejects a missing file, naming it", async () => {
    const path = missingPath();
    const err = await checkReadable(path).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(VertdupError);
    expect((err as Error).message).toBe(`${path}: cannot read input file (missing or no permission)`);
  });

  it.skipIf(process.getuid?.() === 0)("rejects an unreadable file, naming it", async () => {
    const path = writeVert("x\n");
    chmodSync(path, 0o000);
    await expect(checkReadable(path)).rejects.toThrow(`${path}: cannot read input file`);
    chmodSync(path, 0o600);
  });
});

describe("describeStreamError", () => {
  it("explains errors in the user's terms, with the file name", () => {
    const e1 = describeStreamError("c.vert.gz", new Error("unexpected end of file"));
    expect(e1).toBeInstanceOf(VertdupError);
    expect(e1.message).toBe("c.vert.gz: gzip stream is truncated or corrupt (unexpected end of file)");
    expect(describeStreamError("c.vert.zst", new Error("boom")).message).toBe(
      "c.vert.zst: zstd stream is truncated or corrupt (boom)",
    );
    expect(describeStreamError("c.vert", new Error("EIO")).message).toBe("c.vert: read error (EIO)");
    expect(describeStreamError("-", "weird").message).toBe("<stdin>: read error (weird)");
  });
});

describe("decompression respects back-pressure", () => {
  for (const kind of ["gz", "zst"] as const) {
    it(`a paused reader of a ${kind} bomb holds a bounded number of bytes`, async () => {
      const path = writeRaw(bomb(kind, "", 16), `bomb.vert.${kind}`);
      const stream = openInput(path);
      await new Promise<void>((done) => stream.once("readable", done));
      // The reader takes nothing: whatever the decompressor makes meanwhile stays buffered.
      await new Promise((done) => setTimeout(done, 300));
      expect(stream.readableLength).toBeLessThanOrEqual(4 << 20);
      let total = 0;
      for await (const piece of stream as AsyncIterable<Buffer>) total += piece.length;
      expect(total).toBe(16 * BOMB_BLOCK);
    });
  }
});
