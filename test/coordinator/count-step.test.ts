import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { compress } from "zstd-napi";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

afterAll(removeTempDirs);

// The bundled sample with the id of every third document removed: those are named by their
// corpus ordinal, which a worker reading a byte range must know.
const text = gunzipSync(readFileSync("data-samples/sample.vert.gz"))
  .toString("utf8")
  .split("\n")
  .map((line, i) => (line.startsWith("<doc ") && i % 3 === 0 ? line.replace(/ id="[^"]*"/, "") : line))
  .join("\n");

function shardsOf(input: string, args: string[]): Map<string, Buffer> {
  const work = join(tempDir(), "work");
  const r = vertdup(["prepare", input, "-w", work, "--quiet", ...args]);
  expect(r.stderr).not.toMatch(/error/);
  expect(r.status).toBe(0);
  const files = new Map<string, Buffer>();
  for (const dir of ["shards", "store"]) for (const f of readdirSync(join(work, dir))) files.set(`${dir}/${f}`, readFileSync(join(work, dir, f)));
  files.set("chunks.json", readFileSync(join(work, "chunks.json")));
  return files;
}

describe("count pass on a plain file read by byte range in the workers", () => {
  it("writes the shards of the same corpus read as a compressed stream, whatever the workers", () => {
    const dir = tempDir();
    const plain = join(dir, "c.vert");
    const zst = join(dir, "c.vert.zst");
    writeFileSync(plain, text);
    writeFileSync(zst, compress(Buffer.from(text)));
    const chunking = ["--chunk-size", "20000"];
    const streamed = shardsOf(zst, [...chunking, "--workers", "1"]);
    expect(streamed.size).toBeGreaterThan(20);
    for (const workers of ["1", "2"]) {
      const ranged = shardsOf(plain, [...chunking, "--workers", workers]);
      expect([...ranged.keys()]).toEqual([...streamed.keys()]);
      for (const [name, bytes] of streamed) expect(ranged.get(name)!.equals(bytes), name).toBe(true);
    }
  });

  it("names the line in the file of a problem in a later range", () => {
    const lines = text.split("\n");
    const at = lines.length - 40;
    lines.splice(at, 0, "bad\r");
    const plain = join(tempDir(), "bad.vert");
    writeFileSync(plain, lines.join("\n"));
    const r = vertdup(["prepare", plain, "-w", join(tempDir(), "work"), "--quiet", "--chunk-size", "20000"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`bad.vert:${at + 1}: CRLF line end`);
  });
});
