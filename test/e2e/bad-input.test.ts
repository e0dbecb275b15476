import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { compress } from "zstd-napi";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

afterAll(removeTempDirs);

const GOOD = '<doc id="a">\n<p>\nHello\nworld\n</p>\n</doc>\n<doc id="b">\n<p>\nHello\nthere\n</p>\n</doc>\n';

function corpus(name: string, bytes: Buffer | string): string {
  const path = join(tempDir(), name);
  writeFileSync(path, bytes);
  return path;
}

/** Runs the pipeline on one input and returns its outcome and what the output dir holds. */
function runOn(input: string) {
  const out = join(tempDir(), "out");
  const r = vertdup(["run", input, "-o", out, "--quiet", "--iterations", "2", "--workers", "2"]);
  const files = existsSync(out) ? readdirSync(out) : [];
  return { ...r, files };
}

describe("bad input stops the run with file:line and exit 1, leaving no output", () => {
  const cases: [string, string | Buffer, RegExp][] = [
    ["text outside a document", "stray\n" + GOOD, /bad\.vert:1: token outside <doc>/],
    ["a nested <doc>", '<doc id="a">\nx\n<doc id="b">\ny\n</doc>\n</doc>\n', /bad\.vert:3: <doc> inside the <doc> opened at line 1/],
    ["an unclosed <doc>", GOOD + '<doc id="c">\nword\n', /bad\.vert:13: <doc> is never closed/],
    ["a stray </doc>", GOOD + "</doc>\n", /bad\.vert:13: <\/doc> without an open <doc>/],
    ["invalid UTF-8", Buffer.concat([Buffer.from(GOOD), Buffer.from('<doc id="c">\nbad'), Buffer.from([0xc3, 0x28]), Buffer.from("\n</doc>\n")]), /bad\.vert:14: invalid UTF-8/],
    ["CRLF line ends", GOOD.replace(/\n/g, "\r\n"), /bad\.vert:1: CRLF line end/],
    ["an empty file", "", /bad\.vert: input is empty/],
    ["a corpus of tags only", "<p>\n</p>\n", /the corpus has no documents/],
  ];
  for (const [what, content, message] of cases) {
    it(what, () => {
      const r = runOn(corpus("bad.vert", content));
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(r.files.filter((f) => f !== ".")).toEqual([]);
    });
  }

  it("a truncated .gz", () => {
    const gz = gzipSync(Buffer.from(GOOD.repeat(200)));
    const r = runOn(corpus("cut.vert.gz", gz.subarray(0, gz.length - 40)));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cut\.vert\.gz: gzip stream is truncated or corrupt/);
    expect(r.files).toEqual([]);
  });

  it("a truncated .zst", () => {
    const zst = compress(Buffer.from(GOOD.repeat(200)));
    const r = runOn(corpus("cut.vert.zst", zst.subarray(0, zst.length - 10)));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cut\.vert\.zst: zstd stream is truncated or corrupt/);
    expect(r.files).toEqual([]);
  });

  it("a missing input file", () => {
    const r = runOn(join(tempDir(), "nope.vert"));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/nope\.vert: cannot read input file/);
  });

  it("an unwritable output directory", () => {
    const blocker = corpus("a-file", "not a directory");
    const r = vertdup(["run", corpus("ok.vert", GOOD), "-o", join(blocker, "out"), "--quiet"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/a-file\/out: cannot write to this directory/);
  });

  it("an invalid option value", () => {
    const r = vertdup(["run", corpus("ok.vert", GOOD), "-o", join(tempDir(), "o"), "--bits", "100"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/--bits must be a positive multiple of 64/);
  });

  it("pleb on a directory that was never prepared", () => {
    const r = vertdup(["pleb", "-w", tempDir(), "-o", join(tempDir(), "o")]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/not a prepared work directory/);
  });
});

describe("lenient irregularities are counted in the manifest", () => {
  it("stray </p>, unclosed <p>, empty lines and tags outside documents", () => {
    const text = '<corpus>\n<doc id="a">\n</p>\n<p>\nHello\n\nworld\n</doc>\n<doc id="b">\n<p>\nHello\nworld\n</p>\n</doc>\n</corpus>\n';
    const out = join(tempDir(), "out");
    const r = vertdup(["run", corpus("lenient.vert", text), "-o", out, "--quiet", "--iterations", "1", "--weighting", "tf"]);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.status).toBe(0);
    const m = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    expect(m.warnings).toEqual({ strayClosingTag: 1, unclosedStructure: 1, emptyLine: 1, tagOutsideDoc: 2 });
    expect(readFileSync(join(out, "groups.tsv"), "utf8")).toBe("group\tdoc\tordinal\n1\ta\t1\n1\tb\t2\n");
  });

  it("documents without any term get no signature and are counted", () => {
    const text = '<doc id="a">\n.\n,\n</doc>\n<doc id="b">\n123\n</doc>\n<doc id="c">\nword\n</doc>\n<doc id="d">\nword\n</doc>\n';
    const out = join(tempDir(), "out");
    const r = vertdup(["run", corpus("empty-docs.vert", text), "-o", out, "--quiet", "--iterations", "1", "--weighting", "tf"]);
    expect(r.status).toBe(0);
    const m = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    expect(m.counts.documents).toBe(4);
    expect(m.counts.emptyDocuments).toBe(2);
    expect(readFileSync(join(out, "groups.tsv"), "utf8")).toBe("group\tdoc\tordinal\n1\tc\t3\n1\td\t4\n");
  });
});
