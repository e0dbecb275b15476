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

function shardsOf(input: string | string[], args: string[]): Map<string, Buffer> {
  const work = join(tempDir(), "work");
  const r = vertdup(["prepare", ...[input].flat(), "-w", work, "--quiet", ...args]);
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

  // Documents over --max-doc-bytes 30000 (the sample's are at most 6.4 KB): each task learns
  // its first ordinal and line from the chunks before it, a skipped document among them.
  const docStarts = lines().flatMap((l, i) => (l.startsWith("<doc") ? [i] : []));
  const giant = `<doc id="giant">\n${"x\n".repeat(20_000)}</doc>`;
  function lines(): string[] {
    return text.split("\n");
  }
  /** The text with a giant document before the k-th document, and optionally a bad line `after` lines after it; the bad line's line number. */
  function withGiant(k: number, after?: number): { corpus: string; bad: number } {
    const all = lines();
    const at = docStarts[k];
    all.splice(at, 0, giant);
    const giantLines = giant.split("\n").length;
    // The giant document is one element of `all` but giantLines lines of the file.
    if (after !== undefined) all.splice(at + 1 + after, 0, "bad\r");
    return { corpus: all.join("\n"), bad: at + 1 + (after ?? 0) + giantLines };
  }
  const files = (corpus: string) => {
    const dir = tempDir();
    const plain = join(dir, "g.vert");
    const zst = join(dir, "g.vert.zst");
    writeFileSync(plain, corpus);
    writeFileSync(zst, compress(Buffer.from(corpus)));
    return { plain, zst };
  };
  const small = ["--chunk-size", "20000", "--max-doc-bytes", "30000"];

  it("numbers the documents after a skipped one alike, plain or compressed, whatever the workers", () => {
    const { plain, zst } = files(withGiant(300).corpus);
    const reference = shardsOf(zst, [...small, "--oversize", "skip", "--workers", "1"]);
    // chunks.json names the input of the first skipped document, here at the giant's <doc> line.
    const counts = (files: Map<string, Buffer>, input: string) => files.get("chunks.json")!.toString().replace(input, "<input>");
    expect(JSON.parse(counts(reference, zst))).toMatchObject({ documents: 501, skipped: { documents: 1, first: `<input>:${docStarts[300] + 1}` } });
    for (const [input, workers] of [[zst, "2"], [plain, "1"], [plain, "2"]]) {
      const other = shardsOf(input, [...small, "--oversize", "skip", "--workers", workers]);
      expect([...other.keys()]).toEqual([...reference.keys()]);
      expect(counts(other, input)).toBe(counts(reference, zst));
      for (const [name, bytes] of reference) if (name !== "chunks.json") expect(other.get(name)!.equals(bytes), `${input} ${workers} ${name}`).toBe(true);
    }
  });

  it("names the line of a document over the limit, and of a problem after a skipped one, in a compressed input as in a plain one", () => {
    const over = withGiant(400);
    const skippedThenBad = withGiant(250, 30);
    for (const pick of ["plain", "zst"] as const) {
      const input = files(over.corpus)[pick];
      const tooLong = vertdup(["prepare", input, "-w", join(tempDir(), "work"), "--quiet", ...small, "--workers", "2"]);
      expect(tooLong.status).toBe(1);
      expect(tooLong.stderr).toContain(`${input}:${docStarts[400] + 1}: more than 30000 bytes`);
      const bad = files(skippedThenBad.corpus)[pick];
      const r = vertdup(["prepare", bad, "-w", join(tempDir(), "work"), "--quiet", ...small, "--oversize", "skip", "--workers", "2"]);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`${bad}:${skippedThenBad.bad}: CRLF line end`);
    }
  });

  it("continues ordinals and restarts lines across plain and compressed inputs", () => {
    const all = lines();
    const half = docStarts[250];
    const [first, second] = [all.slice(0, half).join("\n") + "\n", all.slice(half).join("\n")];
    const a = files(first);
    const b = files(second);
    const reference = shardsOf([a.zst, b.zst], ["--chunk-size", "20000", "--workers", "1"]);
    expect(JSON.parse(reference.get("chunks.json")!.toString())).toMatchObject({ documents: 500 });
    for (const inputs of [[a.plain, b.zst], [a.zst, b.plain], [a.plain, b.plain]]) {
      const other = shardsOf(inputs, ["--chunk-size", "20000", "--workers", "2"]);
      expect([...other.keys()]).toEqual([...reference.keys()]);
      for (const [name, bytes] of reference) expect(other.get(name)!.equals(bytes), `${inputs.join(" ")} ${name}`).toBe(true);
    }
    const badSecond = second.split("\n");
    badSecond.splice(4000, 0, "bad\r");
    const bad = files(badSecond.join("\n"));
    for (const inputs of [[a.plain, bad.plain], [a.zst, bad.zst]]) {
      const r = vertdup(["prepare", ...inputs, "-w", join(tempDir(), "work"), "--quiet", "--chunk-size", "20000", "--workers", "2"]);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`${inputs[1]}:4001: CRLF line end`);
    }
  });
});
