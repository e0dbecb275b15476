// End to end: a file without <doc> fails at its first line at once, a document over
// --max-doc-bytes fails with its file and line, in every command that reads a corpus.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

afterAll(removeTempDirs);

const DOC = (id: string, words: number) => `<doc id="${id}">\n<p>\n${"word\n".repeat(words)}</p>\n</doc>\n`;

function file(name: string, bytes: string | Buffer): string {
  const path = join(tempDir(), name);
  writeFileSync(path, bytes);
  return path;
}

const commands: [string, (input: string, dir: string, extra: string[]) => string[]][] = [
  ["run", (input, dir, extra) => ["run", input, "-o", join(dir, "out"), "--quiet", "--workers", "1", "--iterations", "2", ...extra]],
  ["run --method exact", (input, dir, extra) => ["run", input, "-o", join(dir, "out"), "--method", "exact", "--quiet", "--workers", "1", ...extra]],
  ["paragraphs", (input, dir, extra) => ["paragraphs", input, "-o", join(dir, "out.vert"), "--quiet", "--workers", "1", ...extra]],
];

describe("a 50 MB file without <doc> fails at line 1", () => {
  const body = "word\n".repeat(10 << 20);
  const plain = file("nodoc.vert", body);
  const gz = file("nodoc.vert.gz", gzipSync(body, { level: 1 }));
  for (const [name, args] of commands) {
    for (const input of [plain, gz]) {
      it(`${name} ${input.slice(-8)}`, () => {
        const dir = tempDir();
        const r = vertdup(args(input, dir, []));
        expect(r.status).toBe(1);
        expect(r.stderr).toContain(`vertdup: error: ${input}:1: token outside <doc>`);
        expect(existsSync(join(dir, "out.vert"))).toBe(false);
      });
    }
  }
});

describe("--max-doc-bytes", () => {
  const corpus = DOC("a", 3) + DOC("b", 300_000) + DOC("c", 3);
  const bigLine = 8;
  for (const [name, args] of commands) {
    it(`${name}: a document over the limit is an error naming its <doc> line`, () => {
      const input = file("long.vert", corpus);
      const r = vertdup(args(input, tempDir(), ["--max-doc-bytes", "1M"]));
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`vertdup: error: ${input}:${bigLine}: more than 1048576 bytes from this line to the next <doc>`);
    });
    it(`${name}: accepts it under the default limit`, () => {
      const r = vertdup(args(file("long.vert", corpus), tempDir(), []));
      expect(r.stderr).not.toContain("error");
      expect(r.status).toBe(0);
    });
  }

  it("paragraphs: also inside a chunk larger than the limit", () => {
    const input = file("long.vert", corpus);
    const r = vertdup(["paragraphs", input, "-o", join(tempDir(), "out.vert"), "--quiet", "--chunk-size", String(4 << 20), "--max-doc-bytes", "1M"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`vertdup: error: ${input}:${bigLine}: more than 1048576 bytes`);
  });

  it("clean: a line over the limit is an error naming it", () => {
    const dir = tempDir();
    const input = file("line.vert", DOC("a", 3) + DOC("b", 3) + `<doc id="c">\n${"x".repeat(2 << 20)}\n</doc>\n`);
    const run = vertdup(["run", input, "-o", join(dir, "out"), "--quiet", "--workers", "1", "--iterations", "2"]);
    expect(run.status).toBe(0);
    const r = vertdup(["clean", input, "--from", join(dir, "out"), "-o", join(dir, "clean.vert"), "--max-doc-bytes", "1M"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`vertdup: error: ${input}:16: line longer than --max-doc-bytes (1048576 bytes)`);
    expect(existsSync(join(dir, "clean.vert"))).toBe(false);
  });

  it("rejects a size that is not one", () => {
    const r = vertdup(["run", file("ok.vert", DOC("a", 3)), "-o", join(tempDir(), "out"), "--max-doc-bytes", "lots"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("--max-doc-bytes: expected a size such as 4G or 512M, got lots");
  });
});
