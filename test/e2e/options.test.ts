import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

afterAll(removeTempDirs);

const GOOD = '<doc id="a">\n<p>\nHello\nworld\nagain\n</p>\n</doc>\n<doc id="b">\n<p>\nHello\nworld\nagain\n</p>\n</doc>\n<doc id="c">\n<p>\nSomething\nelse\n</p>\n</doc>\n';

let input = "";
beforeAll(() => {
  input = join(tempDir(), "ok.vert");
  writeFileSync(input, GOOD);
});

/** A refused option: exit 1, the one-line message, nothing done (no output, no progress). */
function expectRefused(args: string[], message: RegExp, outdir?: string) {
  const r = vertdup(args);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1); // no stack trace, no progress line
  if (outdir !== undefined) expect(existsSync(outdir)).toBe(false);
}

describe("every option is checked before any work starts (#12 items 7, 8)", () => {
  const run: [string[], RegExp][] = [
    [["--bits", "1048576"], /--bits must be a positive multiple of 64, at most 65536, got 1048576/],
    [["--shift-count", "1000000000"], /--shift-count must be an integer from 0 to 4096, got 1000000000/],
    [["--bits", "128", "--shift-count", "513"], /--shift-count must be an integer from 0 to 512, got 513/],
    [["--seed", "1e20"], /--seed must be an integer from 0 to 9007199254740991, got 100000000000000000000/],
    [["--seed", "-1"], /--seed must be an integer from 0/],
    [["--threshold", "1.5"], /--threshold must be in \(0, 1\], got 1.5/],
    [["--beam", "-1"], /--beam must be an integer from 1 to 100000, got -1/],
    [["--beam", "1e9"], /--beam must be an integer from 1 to 100000/],
    [["--iterations", "0"], /--iterations must be an integer from 1 to 100000, got 0/],
    [["--iterations-per-group", "2.5"], /--iterations-per-group must be an integer from 1/],
    [["--workers", "0"], /--workers must be an integer from 1 to 1024, got 0/],
    [["--workers", "100000"], /--workers must be an integer from 1 to 1024/],
    [["--chunk-size", "2e9"], /--chunk-size must be an integer from 1 to 1073741824/],
    [["--column", "-1"], /--column must be an integer from 0 to 255, got -1/],
    [["--shingle-size", "0"], /--shingle-size must be an integer from 1 to 64/],
    [["--min-df", "-1"], /--min-df must be a document count or a fraction/],
    [["--max-df", "0"], /--max-df must be positive, got 0/],
    [["--max-df", "2.5"], /--max-df must be a document count or a fraction/],
    [["--id-attr", "a b"], /--id-attr must be an XML name/],
    [["--pairs-limit", "-1"], /--pairs-limit must be an integer from 0/],
    [["--method", "minhash", "--num-perm", "0"], /--num-perm must be an integer from 1 to 1024, got 0/],
    [["--method", "minhash", "--bands", "0"], /--bands must be an integer from 1 to 1024, got 0/],
    [["--method", "minhash", "--memory", "0"], /--memory must be from 16M to 1T, got 0/],
    [["--method", "minhash", "--memory", "lots"], /--memory: expected a size such as 4G or 512M, got lots/],
    [["--method", "minhash", "--threshold", "0"], /--threshold must be in \(0, 1\], got 0/],
    [["--method", "simhash384", "--max-distance", "12"], /--max-distance must be an integer from 0 to 11 \(the 12-block pigeonhole\), got 12/],
    [["--method", "paragraphs", "--short-tokens", "0"], /--short-tokens must be an integer from 1/],
  ];
  for (const [extra, message] of run) {
    it(`run ${extra.join(" ")}`, () => {
      const out = join(tempDir(), "out");
      expectRefused(["run", input, "-o", out, ...extra], message, out);
    });
  }

  it("pleb checks its options before it opens the work directory", () => {
    const never = join(tempDir(), "never-prepared");
    expectRefused(["pleb", "-w", never, "-o", join(never, "o"), "--threshold", "1.5"], /--threshold must be in \(0, 1\], got 1.5/);
    expectRefused(["pleb", "-w", never, "-o", join(never, "o"), "--beam", "-1"], /--beam must be an integer from 1 to 100000, got -1/);
    expectRefused(["pleb", "-w", never, "-o", join(never, "o"), "--shift-count", "262145"], /--shift-count must be an integer from 0 to 262144/);
  });

  it("pleb limits --shift-count to 4 × the bits of the prepared signatures, before any work", () => {
    const w = join(tempDir(), "w");
    expect(vertdup(["prepare", input, "-w", w, "--bits", "64", "--quiet", "--workers", "1"]).status).toBe(0);
    const out = join(tempDir(), "o");
    expectRefused(["pleb", "-w", w, "-o", out, "--shift-count", "257"], new RegExp(`--shift-count must be an integer from 0 to 256 \\(4 × the 64 bits of ${w}\\), got 257`), out);
  });

  it("paragraphs --memory below 16M, and its own limits", () => {
    const out = join(tempDir(), "p.vert");
    expectRefused(["paragraphs", input, "-o", out, "--memory", "0"], /--memory must be from 16M to 1T, got 0/);
    expectRefused(["paragraphs", input, "-o", out, "--memory", "1M"], /--memory must be from 16M to 1T, got 1M/);
    expectRefused(["paragraphs", input, "-o", out, "--ngram", "65"], /--ngram must be an integer from 1 to 64, got 65/);
    expectRefused(["paragraphs", input, "-o", out, "--threshold", "1.01"], /--threshold must be in \[0, 1\], got 1.01/);
    expectRefused(["paragraphs", input, "-o", out, "--max-stub", "-2"], /--max-stub must be an integer from -1/);
    expectRefused(["paragraphs", input, "-o", out, "--structure", "<p>"], /--structure must be an XML name/);
    expect(existsSync(out)).toBe(false);
  });

  it("the exact references, compare and slurm run", () => {
    const w = tempDir();
    expectRefused(["similarity", "-w", w, "-o", join(w, "s.tsv"), "--threshold", "2"], /--threshold must be in \(0, 1\], got 2/);
    expectRefused(["hamming-full", "-w", w, "-o", join(w, "h.tsv"), "--threshold", "0.9", "--workers", "0"], /--workers must be an integer from 1/);
    expectRefused(["compare", "--reference", "r.tsv", "--candidate", "c.tsv", "--candidate-threshold", "-0.5"], /--candidate-threshold must be in \[0, 1\], got -0.5/);
    expectRefused(["slurm", "run", input, "-w", w, "-o", join(w, "o"), "--tasks", "0", "--dry-run"], /--tasks must be an integer from 1 to 10000, got 0/);
  });
});

describe("- is standard input/output the same way in every command (#12 item 12)", () => {
  it("clean -o - writes the corpus to standard output, like --output=-", () => {
    const out = join(tempDir(), "run");
    expect(vertdup(["run", input, "-o", out, "--quiet", "--iterations", "2", "--workers", "1"]).status).toBe(0);
    const short = vertdup(["clean", input, "--from", out, "-o", "-"]);
    expect(short.stderr).not.toMatch(/error/);
    expect(short.status).toBe(0);
    expect(short.stdout).toBe('<doc id="a">\n<p>\nHello\nworld\nagain\n</p>\n</doc>\n<doc id="c">\n<p>\nSomething\nelse\n</p>\n</doc>\n');
    expect(vertdup(["clean", input, "--from", out, "--output=-"]).stdout).toBe(short.stdout);
    expect(vertdup(["clean", "-", "--from", out, "-o", "-"], GOOD).stdout).toBe(short.stdout);
  });

  it("paragraphs - -o - reads standard input and writes standard output", () => {
    const r = vertdup(["paragraphs", "-", "-o", "-", "--quiet", "--workers", "1", "--ngram", "2", "--max-stub", "-1"], GOOD);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('<doc id="a">\n<p>\nHello\nworld\nagain\n</p>\n</doc>\n<doc id="c">\n<p>\nSomething\nelse\n</p>\n</doc>\n');
  });

  it("- for a directory or a file that cannot be a stream is refused, not taken as a name", () => {
    const w = tempDir();
    expectRefused(["run", input, "-o", "-"], /--outdir names a file or directory: - \(standard input\/output\) is not possible here/);
    expectRefused(["run", input, "-o", join(w, "o"), "-w", "-"], /--workdir names a file or directory/);
    expectRefused(["similarity", "-w", w, "-o", "-", "--threshold", "0.9"], /--output names a file or directory/);
    expectRefused(["clean", input, "--from", "-", "-o", "-"], /--from names a file or directory/);
    expect(existsSync("-")).toBe(false);
  });
});

describe("each command shows and accepts only the options it uses (#12 item 16)", () => {
  const unknown: [string[], string][] = [
    [["pleb", "-w", "w", "-o", "o", "--chunk-size", "100"], "chunk-size"],
    [["pleb", "-w", "w", "-o", "o", "--tmp-dir", "t"], "tmp-dir"],
    [["prepare", "x.vert", "-w", "w", "--tmp-dir", "t"], "tmp-dir"],
    [["paragraphs", "x.vert", "-o", "o.vert", "--seed", "3"], "seed"],
    [["short-long", "x.vert", "-o", "o", "--seed", "3"], "seed"],
    // Commands without resumable steps refuse --resume rather than ignore it.
    [["short-long", "x.vert", "-o", "o", "--resume"], "resume"],
    [["compare", "--reference", "r.tsv", "--candidate", "o", "--resume"], "resume"],
    [["slurm", "run", "x.vert", "-w", "w", "-o", "o", "--resume"], "resume"],
  ];
  for (const [args, option] of unknown) {
    it(`${args[0]} refuses --${option}`, () => {
      const r = vertdup(args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^vertdup: Unknown argument: ${option}\\n`));
      expect(vertdup([args[0], "--help"]).stdout).not.toContain(`--${option}`);
    });
  }

  it("an option the chosen --method does not use is an error naming both", () => {
    const out = join(tempDir(), "out");
    expectRefused(["run", input, "-o", out, "--method", "minhash", "--bits", "128"], /--bits does not apply to --method minhash \(it is an option of lsh-cosine\)/, out);
    expectRefused(["run", input, "-o", out, "--method", "exact", "--threshold", "0.5"], /--threshold does not apply to --method exact/, out);
    expectRefused(["run", input, "-o", out, "--method", "simhash384", "--shift-count", "2"], /--shift-count does not apply to --method simhash384/, out);
    expectRefused(["run", input, "-o", out, "--method", "paragraphs", "--no-lowercase", "--beam", "9"], /--beam does not apply to --method paragraphs/, out);
    expectRefused(["run", input, "-o", out, "--num-perm", "64"], /--num-perm does not apply to --method lsh-cosine \(it is an option of minhash\)/, out);
  });

  it("--tmp-dir with -w is refused: the work directory is the one given", () => {
    const out = join(tempDir(), "out");
    expectRefused(["run", input, "-o", out, "-w", join(tempDir(), "w"), "--tmp-dir", tempDir()], /--tmp-dir does nothing with -w/, out);
  });

  it("the long name of -o says whether it is a directory or a file; -o works everywhere", () => {
    for (const command of ["run", "pleb", "short-long"]) expect(vertdup([command, "--help"]).stdout).toMatch(/-o, --outdir\s/);
    for (const command of ["clean", "paragraphs", "similarity", "hamming-full"]) expect(vertdup([command, "--help"]).stdout).toMatch(/-o, --output\s/);
    expect(vertdup(["slurm", "run", "--help"]).stdout).toMatch(/-o, --outdir\s/);
  });

  it("the options of the chosen method still work, given or defaulted", () => {
    const out = join(tempDir(), "out");
    const r = vertdup(["run", input, "-o", out, "--quiet", "--workers", "1", "--method", "minhash", "--shingle-size", "2", "--threshold", "0.5", "--num-perm", "64", "--seed", "3", "--memory", "64M"]);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.status).toBe(0);
    // a and b have the same shingle set: one identity group, no edge between groups.
    expect(readFileSync(join(out, "pairs.tsv"), "utf8")).toBe("doc_a\tdoc_b\tsimilarity\n");
    expect(readFileSync(join(out, "groups.tsv"), "utf8")).toMatch(/^group\tdoc\tordinal\n1\ta\t1\n1\tb\t2\n$/);
  });
});
