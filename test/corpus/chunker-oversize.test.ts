import { type Chunk, emptyWarnings, parseChunk, type VerticalDoc } from "../../src/corpus/vertical.js";
// --oversize skip in the chunker: a document over --max-doc-bytes keeps its ordinal as an
// empty stub, its bytes are dropped as they are read, and the rest is cut as without it.
import { afterAll, describe, expect, it, vi } from "vitest";
import { chunkCorpus, readLimits } from "../../src/corpus/chunker.js";
import { cleanupVerts, makeCorpus, writeVert, type VertKind } from "../helpers/vert.js";

afterAll(cleanupVerts);

const MiB = 1 << 20;

async function chunks(inputs: string[], target: number, max: number): Promise<Chunk[]> {
  const out: Chunk[] = [];
  for await (const c of chunkCorpus(inputs, target, readLimits(max, "skip"))) out.push(c);
  return out;
}

function docsOf(cs: Chunk[]): VerticalDoc[] {
  const docs: VerticalDoc[] = [];
  for (const c of cs) parseChunk(c, { column: 0, idAttr: "id" }, emptyWarnings(), (d) => docs.push(d));
  return docs;
}

const before = makeCorpus(30, 1, "a");
const after = makeCorpus(30, 2, "c");
// Spans several chunks and stream pieces; a line outside documents follows its </doc>.
const giant = `<doc id="big" n="1">\n<p>\n${"word\tT\tl\n".repeat(40_000)}</p>\n</doc>\n${"x".repeat(70_000)}\n`;
const giantLines = giant.split("\n").length - 1;

describe("--oversize skip in the chunker", () => {
  for (const kind of ["plain", "gz", "zst"] as VertKind[]) {
    it(`skips a document over the limit, the rest as without it (${kind})`, async () => {
      const path = writeVert(before + giant + after, kind);
      const without = docsOf(await chunks([writeVert(before + after, kind)], MiB, MiB));
      for (const target of [1, 300, 4096, MiB]) {
        const cs = await chunks([path], target, 100_000);
        const skipped = cs.filter((c) => c.skipped);
        expect(skipped.map((c) => c.bytes.toString())).toEqual(['<doc id="big" n="1">\n</doc>\n']);
        expect(skipped[0].firstLine).toBe(before.split("\n").length);
        expect(skipped[0].firstDoc).toBe(30);
        const docs = docsOf(cs);
        expect(docs.map((d) => d.id)).toEqual([...without.slice(0, 30).map((d) => d.id), "big", ...without.slice(30).map((d) => d.id)]);
        expect(docs[30].tokens).toEqual([]);
        // Ordinals and lines of the documents after it are those of the whole file.
        for (let k = 30; k < 60; k++) {
          expect(docs[k + 1].tokens).toEqual(without[k].tokens);
          expect(docs[k + 1].line).toBe(without[k].line + giantLines);
        }
        expect(Buffer.concat(cs.filter((c) => !c.skipped).map((c) => c.bytes)).toString()).toBe(before + after);
      }
    });
  }

  it("never holds the skipped document whole", async () => {
    const size = 48 * MiB;
    const path = writeVert(Buffer.concat([Buffer.from('<doc id="a">\nw\n</doc>\n<doc id="b" t="'), Buffer.alloc(size, "x"), Buffer.from('">\nw\n</doc>\n<doc id="c">\nw\n</doc>\n')]));
    const concat = vi.spyOn(Buffer, "concat");
    try {
      const cs = await chunks([path], MiB, MiB);
      expect(cs.map((c) => [c.firstDoc, c.docCount, c.skipped ?? false])).toEqual([[0, 1, false], [1, 1, true], [2, 1, false]]);
      // A giant first line has no end to keep: the stub's id is its ordinal.
      expect(cs[1].bytes.toString()).toBe("<doc>\n</doc>\n");
      expect(cs[2].firstLine).toBe(7);
      const copied = concat.mock.results.reduce((n, r) => n + (r.value as Buffer).length, 0);
      expect(copied).toBeLessThan(4 * MiB);
    } finally {
      concat.mockRestore();
    }
  });

  it("still stops at text before the first <doc> over the limit (it is not a document)", async () => {
    const path = writeVert(`<corpus>\n<note>\n${"<g/>\n".repeat(1000)}<doc id="a">\nw\n</doc>\n</corpus>\n`, "plain", "head");
    await expect(chunks([path], 64, 1000)).rejects.toThrow(/head\.vert:1: more than 1000 bytes/);
  });

  it("is an error without skip", async () => {
    const path = writeVert(before + giant + after, "plain", "err");
    const drain = async () => {
      for await (const c of chunkCorpus([path], MiB, readLimits(100_000))) void c;
    };
    await expect(drain()).rejects.toThrow(/err\.vert:\d+: more than 100000 bytes/);
  });
});
