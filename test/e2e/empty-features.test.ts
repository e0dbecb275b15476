import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

afterAll(removeTempDirs);

const WORDS = '<doc id="a">\n<p>\nHello\nworld\n</p>\n</doc>\n<doc id="b">\n<p>\nHello\nthere\n</p>\n</doc>\n<doc id="c">\n<p>\nHello\nworld\n</p>\n</doc>\n';
const WITH_EMPTY = WORDS + '<doc id="d">\n.\n,\n</doc>\n<doc id="e">\n123\n</doc>\n';

function runOn(text: string, args: string[]) {
  const input = join(tempDir(), "c.vert");
  writeFileSync(input, text);
  const out = join(tempDir(), "out");
  const fast = args.includes("--method") ? [] : ["--iterations", "2"]; // an lsh-cosine option
  const r = vertdup(["run", input, "-o", out, "--quiet", "--workers", "1", ...fast, ...args]);
  expect(r.status).toBe(0);
  const warnings = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")).warnings;
  return { stderr: r.stderr, warnings };
}

describe("runs that leave documents without features warn on stderr and in the manifest (#12 item 15)", () => {
  it("lsh-cosine: no term within --max-df", () => {
    const r = runOn(WORDS, ["--max-df", "0.0001"]);
    expect(r.stderr).toContain("vertdup: warning: no document has any term left (--min-df, --max-df, --column, --keep-numbers): no pair can be found\n");
    expect(r.warnings.documentsWithoutFeatures).toBe(3);
  });

  it("lsh-cosine: no term reaches --min-df", () => {
    const r = runOn(WORDS, ["--min-df", "1000000"]);
    expect(r.stderr).toContain("vertdup: warning: no document has any term left");
    expect(r.warnings.documentsWithoutFeatures).toBe(3);
  });

  it("lsh-cosine: some documents without terms are counted", () => {
    const r = runOn(WITH_EMPTY, []);
    expect(r.stderr).toContain("vertdup: warning: 2 of 5 documents have no term left (--min-df, --max-df, --column, --keep-numbers) and are in no pair");
    expect(r.warnings.documentsWithoutFeatures).toBe(2);
  });

  it("no warning when every document has features", () => {
    const r = runOn(WORDS, []);
    expect(r.stderr).not.toMatch(/warning/);
    expect(r.warnings).not.toHaveProperty("documentsWithoutFeatures");
  });

  for (const method of ["exact", "simhash384", "minhash"]) {
    it(`${method}: documents without a kept token`, () => {
      const r = runOn(WITH_EMPTY, ["--method", method]);
      expect(r.stderr).toContain("vertdup: warning: 2 of 5 documents have no kept token left (--column, --keep-numbers) and are in no pair");
      expect(r.warnings.documentsWithoutFeatures).toBe(2);
    });
  }

  it("paragraphs: no long paragraph", () => {
    const r = runOn(WORDS, ["--method", "paragraphs", "--short-tokens", "50"]);
    expect(r.stderr).toContain("vertdup: warning: no document has any long paragraph left (--short-tokens, --column, --keep-numbers): no pair can be found\n");
    expect(r.warnings.documentsWithoutFeatures).toBe(3);
  });
});
