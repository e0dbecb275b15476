import { cpSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, removeTempDirs, tempDir, vertdup, vertdupAsync } from "../helpers/cli.js";
import { spawn } from "node:child_process";

afterAll(removeTempDirs);

const GOOD = '<doc id="a">\n<p>\nHello\nworld\nagain\n</p>\n</doc>\n<doc id="b">\n<p>\nHello\nworld\nagain\n</p>\n</doc>\n<doc id="c">\n<p>\nSomething\nelse\n</p>\n</doc>\n';

let dir = "";
let input = "";
beforeAll(() => {
  dir = tempDir();
  input = join(dir, "c.vert");
  writeFileSync(input, GOOD);
});

/** Refused before any work: exit 1, one line without a stack trace, no output. */
function expectRefused(args: string[], message: RegExp, output?: string) {
  const r = vertdup(args);
  expect(r.stderr).toMatch(message);
  expect(r.status).toBe(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  if (output !== undefined) expect(existsSync(output)).toBe(false);
}

describe("#31 item 7: an option that takes one value given twice is refused", () => {
  const cases: [string, (o: string) => string[], RegExp][] = [
    ["run -o a -o b", (o) => ["run", input, "-o", o, "-o", `${o}2`], /--outdir given twice \(".*", ".*"\)/],
    ["run --method exact --method minhash", (o) => ["run", input, "-o", o, "--method", "exact", "--method", "minhash"], /--method given twice \("exact", "minhash"\)/],
    ["paragraphs -o a -o b", (o) => ["paragraphs", input, "-o", o, "-o", `${o}2`], /--output given twice/],
    ["clean --from o --from o", (o) => ["clean", input, "--from", o, "--from", o, "-o", join(o, "x.vert")], /--from given twice/],
    ["run --seed 1 --seed 2 --seed 3", (o) => ["run", input, "-o", o, "--seed", "1", "--seed", "2", "--seed", "3"], /--seed given 3 times \(1, 2, 3\)/],
    // The parser alone reads this as --column 2.
    ["run --column 1 --column 1", (o) => ["run", input, "-o", o, "--column", "1", "--column", "1"], /--column given twice \(1, 1\)/],
  ];
  for (const [what, args, message] of cases) {
    it(what, () => {
      const o = join(tempDir(), "out");
      expectRefused(args(o), message, o);
    });
  }
});

describe("#31 item 12: an empty option value is refused, not read as 0 or dropped", () => {
  const cases: [string, string[]][] = [
    ["seed", ["run", "--seed", ""]],
    ["column", ["run", "--column", ""]],
    ["shift-count", ["run", "--shift-count", ""]],
    ["min-df", ["run", "--min-df", ""]],
    ["max-distance", ["run", "--method", "simhash384", "--max-distance", ""]],
    ["pairs-limit", ["run", "--pairs", "all", "--pairs-limit", ""]],
    ["seed", ["run", "--seed="]],
    ["max-stub", ["paragraphs", "--max-stub", ""]],
  ];
  for (const [name, [command, ...rest]] of cases) {
    it(`${command} ${rest.join(" ")}''`, () => {
      const o = join(tempDir(), "out");
      expectRefused([command, input, "-o", o, ...rest], new RegExp(`--${name} needs a value`), o);
    });
  }
  it("slurm run --sbatch-arg ''", () => {
    const o = join(tempDir(), "out");
    const w = join(tempDir(), "w");
    expectRefused(["slurm", "run", input, "-o", o, "-w", w, "--dry-run", "--sbatch-arg", ""], /--sbatch-arg needs a value/);
    expect(existsSync(join(w, "slurm"))).toBe(false);
  });
});

describe("#31 item 1: outputs are checked against each other before any work", () => {
  it("paragraphs -o out.vert --report out.vert is refused, an existing out.vert kept", () => {
    const d = tempDir();
    const out = join(d, "out.vert");
    writeFileSync(out, "earlier output\n");
    expectRefused(["paragraphs", input, "-o", out, "--report", join(d, ".", "out.vert")], /out\.vert: is also the path of another output/);
    expect(readFileSync(out, "utf8")).toBe("earlier output\n");
  });
  it("paragraphs --report DIR is refused before the output is written", () => {
    const d = tempDir();
    const out = join(d, "out.vert");
    mkdirSync(join(d, "rdir"));
    expectRefused(["paragraphs", input, "-o", out, "--report", join(d, "rdir")], /rdir: is a directory, not a file to write/, out);
  });
});

describe("#31 item 2: files read through --reference, --from or as an input are not overwritten", () => {
  it("pleb -w W -o out --reference out/pairs.tsv", () => {
    const d = tempDir();
    const [w, out] = [join(d, "w"), join(d, "out")];
    expect(vertdup(["run", input, "-o", out, "-w", w, "--quiet", "--pairs", "all", "--workers", "1"]).status).toBe(0);
    const before = readFileSync(join(out, "pairs.tsv"));
    expectRefused(["pleb", "-w", w, "-o", out, "--pairs", "all", "--reference", join(out, "pairs.tsv"), "--quiet"], /pairs\.tsv: would overwrite input .*pairs\.tsv/);
    expect(readFileSync(join(out, "pairs.tsv"))).toEqual(before);
  });
  it("short-long out/short-long.tsv -o out", () => {
    const out = tempDir();
    writeFileSync(join(out, "short-long.tsv"), GOOD);
    expectRefused(["short-long", join(out, "short-long.tsv"), "-o", out, "--quiet"], /short-long\.tsv: would overwrite input/);
    expect(readFileSync(join(out, "short-long.tsv"), "utf8")).toBe(GOOD);
  });
  it("clean --from out -o out/clusters.tsv", () => {
    const out = join(tempDir(), "out");
    expect(vertdup(["run", input, "-o", out, "--quiet", "--workers", "1"]).status).toBe(0);
    const before = readFileSync(join(out, "clusters.tsv"));
    expectRefused(["clean", input, "--from", out, "-o", join(out, "clusters.tsv")], /clusters\.tsv: would overwrite input/);
    expect(readFileSync(join(out, "clusters.tsv"))).toEqual(before);
  });
});

describe("#31 item 5: a calibration.tsv of an earlier run is not taken for the new run's", () => {
  for (const method of ["lsh-cosine", "minhash"]) {
    it(`run --method ${method} after one with --estimate-recall into the same -o`, () => {
      const out = join(tempDir(), "out");
      const common = [input, "-o", out, "--method", method, "--quiet", "--workers", "1"];
      expect(vertdup(["run", ...common, "--estimate-recall"]).status).toBe(0);
      expect(existsSync(join(out, "calibration.tsv"))).toBe(true);
      expect(readFileSync(join(out, "report.html"), "utf8")).toMatch(/calibration/i);
      const r = vertdup(["run", ...common]);
      expect(r.status).toBe(0);
      expect(existsSync(join(out, "calibration.tsv"))).toBe(false);
      expect(readFileSync(join(out, "report.html"), "utf8")).not.toMatch(/calibration/i);
    });
  }
});

describe("#31 item 11: a SOURCE_DATE_EPOCH that is not a date is refused, naming the variable", () => {
  it("run --against IDX --update with SOURCE_DATE_EPOCH=notanumber", async () => {
    const d = tempDir();
    const [idx, out] = [join(d, "idx"), join(d, "out")];
    const other = join(d, "other.vert");
    writeFileSync(other, GOOD.replace(/id="/g, 'id="x'));
    expect(vertdup(["run", input, "-o", join(d, "first"), "-w", idx, "--quiet", "--workers", "1"]).status).toBe(0);
    const before = readFileSync(join(idx, "index.json"), "utf8");
    const r = await vertdupAsync(["run", other, "-o", out, "--against", idx, "--update", "--quiet", "--workers", "1"], undefined, { SOURCE_DATE_EPOCH: "notanumber" });
    expect(r.stderr).toMatch(/SOURCE_DATE_EPOCH="notanumber": not a date/);
    expect(r.status).toBe(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
    expect(readFileSync(join(idx, "index.json"), "utf8")).toBe(before);
  });
  it("paragraphs -w with SOURCE_DATE_EPOCH=-5", async () => {
    const d = tempDir();
    const r = await vertdupAsync(["paragraphs", input, "-o", join(d, "p.vert"), "-w", join(d, "w"), "--quiet"], undefined, { SOURCE_DATE_EPOCH: "-5" });
    expect(r.stderr).toMatch(/SOURCE_DATE_EPOCH="-5": not a date/);
    expect(r.status).toBe(1);
    expect(existsSync(join(d, "p.vert"))).toBe(false);
  });
});

describe("#31 item 10: -o - into a pipe closed early ends quietly", () => {
  it("paragraphs big.vert -o - | head -1", async () => {
    const big = join(tempDir(), "big.vert");
    const docs: string[] = [];
    for (let d = 0; d < 20_000; d++) docs.push(`<doc id="d${d}">\n<p>\n${Array.from({ length: 30 }, (_, t) => `w${(d * 7919 + t * 104_729) % 1_000_003}`).join("\n")}\n</p>\n</doc>\n`);
    writeFileSync(big, docs.join(""));
    const child = spawn(process.execPath, [CLI, "paragraphs", big, "-o", "-", "--quiet"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c) => (stderr += c));
    // The reader takes the first chunk and goes away, as `head -1` does.
    child.stdout.once("data", () => child.stdout.destroy());
    const status = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    expect(stderr).not.toMatch(/EPIPE|internal error|\n\s+at /);
    expect(status).toBe(0);
  }, 60_000);
});

describe("#31 item 9: a truncated or corrupted JSON file of vertdup's is named, with what to do", () => {
  let made = "";
  beforeAll(() => {
    made = tempDir();
    expect(vertdup(["run", input, "-o", join(made, "out"), "-w", join(made, "w"), "--quiet", "--workers", "1"]).status).toBe(0);
  });
  /** A copy of the finished run's `out` and `w`, with `file` in it cut to its first 20 bytes (or replaced by `{`). */
  function damaged(file: string, cut = true): string {
    const d = tempDir();
    cpSync(made, d, { recursive: true });
    const path = join(d, file);
    writeFileSync(path, cut ? readFileSync(path).subarray(0, 20) : "{\n");
    return d;
  }
  const expectNamed = (args: string[], file: string, advice: RegExp) => {
    const r = vertdup(args);
    expect(r.stderr).toMatch(new RegExp(`${file.replace(/\./g, "\\.")}: not valid JSON, the file is truncated or corrupted`));
    expect(r.stderr).toMatch(advice);
    expect(r.status).toBe(1);
    expect(r.stderr).not.toMatch(/SyntaxError|\n\s+at /);
  };
  it("clean --from OUT with a truncated manifest.json", () => {
    const d = damaged("out/manifest.json");
    expectNamed(["clean", input, "--from", join(d, "out"), "-o", join(d, "c.vert")], "out/manifest.json", /run vertdup run again/);
    expect(existsSync(join(d, "c.vert"))).toBe(false);
  });
  it("pleb -w W with a truncated prepare.json", () => {
    const d = damaged("w/prepare.json");
    expectNamed(["pleb", "-w", join(d, "w"), "-o", join(d, "p"), "--quiet"], "w/prepare.json", /prepare the work directory again/);
  });
  it("run --resume with a corrupted marker", () => {
    const d = damaged("w/markers/count-000000.done", false);
    expectNamed(["run", input, "-o", join(d, "o2"), "-w", join(d, "w"), "--resume", "--quiet"], "count-000000.done", /run again without --resume/);
  });
  it("run --resume with a corrupted config.json", () => {
    const d = damaged("w/config.json", false);
    expectNamed(["run", input, "-o", join(d, "o2"), "-w", join(d, "w"), "--resume", "--quiet"], "w/config.json", /run again without --resume/);
  });
});

describe("#31 item 16: --resume with a changed input names which input changed and how", () => {
  it("a longer input, an input added, a newer modification time", () => {
    const d = tempDir();
    const corpus = join(d, "c.vert");
    writeFileSync(corpus, GOOD);
    const [w, out] = [join(d, "w"), join(d, "out")];
    expect(vertdup(["run", corpus, "-o", out, "-w", w, "--quiet", "--workers", "1"]).status).toBe(0);
    writeFileSync(corpus, GOOD + GOOD.replace(/id="/g, 'id="x'));
    const size = String(Buffer.byteLength(GOOD));
    expectRefused(["run", corpus, "-o", out, "-w", w, "--resume", "--quiet"], new RegExp(`refusing to resume: the work directory was made with other inputs \\(.*c\\.vert changed: ${size} bytes there, ${2 * Number(size) + 3} now\\)`));
    expectRefused(["run", corpus, input, "-o", out, "-w", w, "--resume", "--quiet"], /other inputs \(.*c\.vert added \(1 there, 2 now\); .*c\.vert changed/);
    writeFileSync(corpus, GOOD);
    utimesSync(corpus, new Date("2031-01-01T00:00:00Z"), new Date("2031-01-01T00:00:00Z"));
    expectRefused(["run", corpus, "-o", out, "-w", w, "--resume", "--quiet"], /other inputs \(.*c\.vert changed: modified \S+ there, 2031-01-01T00:00:00\.000Z now\)/);
  });
});

describe("#31 item 3: a document's id", () => {
  it("a quote that never closes is bad input at its line, not a document named by its ordinal", () => {
    const bad = join(dir, "quote.vert");
    writeFileSync(bad, GOOD.replace('<doc id="c">', `<doc id="c'>`));
    const out = join(dir, "quote-out");
    expectRefused(["run", bad, "-o", out, "--method", "exact"], /quote\.vert:15: the value of id= opens with " and never closes/, join(out, "clusters.tsv"));
  });

  it("a name two documents have (an id, or the ordinal of a document without one) is counted and said", () => {
    const clash = join(dir, "clash.vert");
    writeFileSync(clash, GOOD.replace('<doc id="a">', '<doc id="2">').replace('<doc id="b">', "<doc>"));
    const out = join(dir, "clash-out");
    const r = vertdup(["run", clash, "-o", out, "--method", "exact", "--quiet"]);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('warning: 1 document has the name of an earlier document (the first: "2"; a document without id= is named by its position)');
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    expect(manifest.warnings.repeatedIds).toEqual({ documents: 1, first: "2" });
    // A corpus whose names are distinct says nothing of them.
    const fine = vertdup(["run", input, "-o", join(dir, "fine-out"), "--method", "exact", "--quiet"]);
    expect(fine.stderr).not.toContain("name of an earlier document");
    expect(JSON.parse(readFileSync(join(dir, "fine-out", "manifest.json"), "utf8")).warnings.repeatedIds).toBeUndefined();
  });
});
