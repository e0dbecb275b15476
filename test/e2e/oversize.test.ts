// --oversize skip end to end: a document over --max-doc-bytes keeps its ordinal with no
// features, so `run` puts it in no cluster and `clean` removes exactly the duplicates.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";
import { rng } from "../helpers/vert.js";

afterAll(removeTempDirs);

const r = rng(7);
const VOCAB = Array.from({ length: 500 }, (_, i) => `w${i}`);
const text = () => Array.from({ length: 3 }, () => `<p>\n${Array.from({ length: 40 }, () => VOCAB[Math.floor(r() * VOCAB.length)]).join("\n")}\n</p>\n`).join("");
const doc = (id: string, body: string) => `<doc id="${id}">\n${body}</doc>\n`;
const [a, b, c, d] = [text(), text(), text(), text()];
// Two equal giant documents: one a single 1.2 MB line, one of many lines, after one 40 KB line.
const giantLine = `${"x".repeat(1_200_000)}\n`;
const giantLines = `${"y".repeat(40_000)}\n${"word\n".repeat(250_000)}`;
const parts = [doc("a", a), doc("b", b), doc("g1", giantLine), doc("a2", a), doc("g2", giantLine), doc("c", c), doc("g3", giantLines), doc("b2", b), doc("d", d)];
const corpus = parts.join("");
const expected = parts.filter((_, i) => i !== 3 && i !== 7).join("");
const g1Line = parts.slice(0, 2).join("").split("\n").length;
const LIMIT = ["--max-doc-bytes", "1M", "--oversize", "skip"];

function input(): string {
  const path = join(tempDir(), "giant.vert");
  writeFileSync(path, corpus);
  return path;
}

const METHODS: [string, string[]][] = [
  ["lsh-cosine", ["--iterations", "4"]],
  ["exact", []],
  ["minhash", []],
  ["simhash384", []],
  ["paragraphs", []],
];

describe("run --oversize skip, then clean --oversize skip", () => {
  const path = input();
  for (const [method, extra] of METHODS) {
    it(`${method}: removes exactly the duplicates around giant documents`, () => {
      const out = join(tempDir(), "out");
      const run = vertdup(["run", path, "-o", out, "--method", method, "--quiet", "--workers", "2", "--chunk-size", "4096", ...LIMIT, ...extra]);
      expect(run.stderr).toContain(`warning: skipped 3 documents larger than --max-doc-bytes (--oversize skip; the first at ${path}:${g1Line})`);
      expect(run.status).toBe(0);
      const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as { warnings: Record<string, unknown> };
      expect(manifest.warnings.oversizeSkipped).toEqual({ documents: 3, first: `${path}:${g1Line}` });
      expect(manifest.warnings.documentsWithoutFeatures).toBeUndefined();
      const cleaned = join(tempDir(), "clean.vert");
      const clean = vertdup(["clean", path, "--from", out, "-o", cleaned, ...LIMIT]);
      expect(clean.stderr).toContain(`warning: 2 lines longer than --max-doc-bytes copied as read, not held (--oversize skip; the first at ${path}:${g1Line + 1})`);
      expect(clean.status).toBe(0);
      expect(readFileSync(cleaned, "utf8")).toBe(expected);
    });
  }

  it("the same pairs and clusters whatever --workers and --chunk-size", () => {
    for (const method of ["lsh-cosine", "minhash"]) {
      const outs = [["--workers", "1", "--chunk-size", "1000000"], ["--workers", "2", "--chunk-size", "300"]].map((knobs) => {
        const out = join(tempDir(), "out");
        expect(vertdup(["run", path, "-o", out, "--method", method, "--quiet", "--iterations", "4", ...LIMIT, ...knobs].filter((x) => method === "lsh-cosine" || x !== "--iterations" && x !== "4")).status).toBe(0);
        return ["pairs.tsv", "clusters.tsv"].map((f) => readFileSync(join(out, f), "utf8"));
      });
      expect(outs[1]).toEqual(outs[0]);
    }
  });

  it("without --oversize skip, run stops at the giant document", () => {
    const out = join(tempDir(), "out");
    const run = vertdup(["run", path, "-o", out, "--method", "exact", "--quiet", "--max-doc-bytes", "1M"]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${path}:${g1Line}: more than 1048576 bytes`);
  });
});

describe("paragraphs --oversize skip", () => {
  const withoutGiants = parts.filter((p) => !p.startsWith('<doc id="g')).join("");
  const write = (name: string, bytes: string | Buffer) => {
    const path = join(tempDir(), name);
    writeFileSync(path, bytes);
    return path;
  };

  it("leaves the giant documents out and the rest byte for byte as without them", () => {
    const reference = join(tempDir(), "ref.vert");
    expect(vertdup(["paragraphs", write("small.vert", withoutGiants), "-o", reference, "--quiet"]).status).toBe(0);
    const want = readFileSync(reference, "utf8");
    for (const [name, bytes] of [["giant.vert", corpus], ["giant.vert.gz", gzipSync(corpus, { level: 1 })]] as const) {
      const path = write(name, bytes);
      for (const knobs of [["--workers", "1", "--chunk-size", "1000000"], ["--workers", "2", "--chunk-size", "300"]]) {
        const out = join(tempDir(), "out.vert");
        const r = vertdup(["paragraphs", path, "-o", out, "--quiet", ...LIMIT, ...knobs]);
        expect(r.stderr).toContain(`warning: skipped 3 documents larger than --max-doc-bytes (--oversize skip; the first at ${path}:${g1Line}): left out of the output`);
        expect(r.status).toBe(0);
        expect(readFileSync(out, "utf8")).toBe(want);
        const report = JSON.parse(readFileSync(`${out}.report.json`, "utf8")) as { warnings: Record<string, unknown> };
        expect(report.warnings.oversizeSkipped).toEqual({ documents: 3, first: `${path}:${g1Line}` });
      }
    }
  });

  it("names the right line of a fault after a skipped document", () => {
    const bad = corpus + '<doc id="z">\nw\r\n</doc>\n';
    const line = corpus.split("\n").length + 1;
    for (const [name, bytes] of [["bad.vert", bad], ["bad.vert.gz", gzipSync(bad, { level: 1 })]] as const) {
      const path = write(name, bytes);
      const r = vertdup(["paragraphs", path, "-o", join(tempDir(), "out.vert"), "--quiet", "--chunk-size", "300", ...LIMIT]);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`${path}:${line}: CRLF`);
    }
  });
});

describe("clean --oversize skip and a run that read the giant documents", () => {
  // 3 MB: at least one piece read holds none of its line ends.
  it("stops when clusters.tsv names a document whose <doc> line is over the limit", () => {
    const wide = (id: string) => `<doc id="${id}" t="${"t".repeat(3_000_000)}">\n${a}</doc>\n`;
    const path = join(tempDir(), "wide.vert");
    writeFileSync(path, doc("a", b) + wide("w1") + wide("w2"));
    const out = join(tempDir(), "out");
    expect(vertdup(["run", path, "-o", out, "--method", "exact", "--quiet", "--max-doc-bytes", "8M"]).status).toBe(0);
    const r = vertdup(["clean", path, "--from", out, "-o", join(tempDir(), "c.vert"), ...LIMIT]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`vertdup: error: ${path}:${doc("a", b).split("\n").length}: document 2 is in clusters.tsv but its <doc> line is longer than --max-doc-bytes`);
  });
});

describe("prepare and slurm run take --oversize", () => {
  it("prepare records the skipped documents in prepare.json; slurm run in the configuration its tasks read", () => {
    const path = input();
    const w = join(tempDir(), "w");
    const r = vertdup(["prepare", path, "-w", w, "--quiet", "--workers", "1", ...LIMIT]);
    expect(r.status, r.stderr).toBe(0);
    const prepared = JSON.parse(readFileSync(join(w, "prepare.json"), "utf8")) as { warnings: Record<string, unknown> };
    expect(prepared.warnings.oversizeSkipped).toEqual({ documents: 3, first: `${path}:${g1Line}` });
    const sw = join(tempDir(), "sw");
    expect(vertdup(["slurm", "run", path, "-w", sw, "-o", join(tempDir(), "o"), "--dry-run", ...LIMIT]).status).toBe(0);
    expect(JSON.parse(readFileSync(join(sw, "config.json"), "utf8"))).toMatchObject({ maxDocBytes: 1 << 20, oversize: "skip" });
  });
});
