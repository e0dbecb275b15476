import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTsv, removeTempDirs, tempDir, vertdup, vertdupAsync } from "../helpers/cli.js";

afterAll(removeTempDirs);

const WORDS = "Příliš žluťoučký kůň úpěl ďábelské ódy a francouzské café était très fine dans la définition finale du fichier officiel молоко было очень хорошее когда мы пришли домой".split(" ");
const FULLWIDTH = (w: string) => [...w].map((ch) => (/[a-z]/i.test(ch) ? String.fromCharCode(ch.charCodeAt(0) + 0xfee0) : ch)).join("");

/**
 * One paragraph as written (NFC, `a`), decomposed (NFD, `b`), with soft hyphens and
 * zero-width spaces inside its words (`c`), and with stress marks, ﬁ ligatures and fullwidth
 * letters (`k`); six unrelated documents.
 */
function writeCorpus(path: string): void {
  const doc = (id: string, words: string[]) => `<doc id="${id}">\n<p>\n${words.join("\n")}\n</p>\n</doc>\n`;
  const docs = [
    doc("a", WORDS),
    doc("b", WORDS.map((w) => w.normalize("NFD"))),
    doc("c", WORDS.map((w, i) => (i % 2 === 1 ? `${w.slice(0, 2)}\u00ad${w.slice(2)}` : `${w.slice(0, 1)}\u200b${w.slice(1)}`))),
    doc("k", WORDS.map((w, i) => (/[а-я]/.test(w) ? w.replace(/([оеа])/, "$1\u0301") : w.includes("fi") ? w.replace("fi", "ﬁ") : i % 3 === 0 ? FULLWIDTH(w) : w))),
  ];
  for (let d = 0; d < 6; d++) docs.push(doc(`r${d}`, Array.from({ length: 30 }, (_, i) => `w${d}x${i}`)));
  writeFileSync(path, docs.join(""));
}

const METHODS = ["lsh-cosine", "minhash", "simhash384", "exact", "paragraphs"];

/** The documents of the run's clusters of more than one document, as sorted lists. */
function clustered(outdir: string): string[][] {
  const byCluster = new Map<string, string[]>();
  for (const [doc, , cluster] of readTsv(join(outdir, "clusters.tsv"))) byCluster.set(cluster, [...(byCluster.get(cluster) ?? []), doc]);
  return [...byCluster.values()].filter((docs) => docs.length > 1).map((docs) => docs.sort());
}

const corpus = join(tempDir(), "forms.vert");
/** The output directory of each run by its arguments: the runs go side by side (each spends its time starting up). */
const runs = new Map<string, string>();
const RUNS = [...METHODS.map((m) => ["--method", m]), ["--method", "lsh-cosine", "--normalize", "nfkc"], ["--method", "minhash", "--normalize", "nfkc"]];
beforeAll(async () => {
  writeCorpus(corpus);
  await Promise.all(
    RUNS.map(async (args) => {
      const out = tempDir();
      const r = await vertdupAsync(["run", corpus, "-o", out, "--no-report", "--workers", "1", "--quiet", ...args]);
      expect(r.stderr).toBe(r.status === 0 ? r.stderr : "");
      runs.set(args.join(" "), out);
    }),
  );
}, 120_000);

describe("one text in other Unicode forms", () => {
  it.each(METHODS)("%s pairs NFC, NFD and soft-hyphen / zero-width variants by default, and records --normalize nfc in the manifest", (method) => {
    const out = runs.get(`--method ${method}`) as string;
    expect(clustered(out)).toEqual([["a", "b", "c"]]);
    expect(JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")).prepare.normalize).toBe("nfc");
  });

  it.each(["lsh-cosine", "minhash"])("%s with --normalize nfkc also pairs stress marks, ligatures and fullwidth letters", (method) => {
    expect(clustered(runs.get(`--method ${method} --normalize nfkc`) as string)).toEqual([["a", "b", "c", "k"]]);
  });

  it("paragraphs marks the NFD and soft-hyphen copies by default; --count tokens (onion 1.2) hashes tokens as they are and takes no other form", () => {
    const marked = (args: string[]) => {
      const output = join(tempDir(), "out.vert");
      expect(vertdup(["paragraphs", corpus, "-o", output, "--mark", "--workers", "1", "--quiet", ...args]).status).toBe(0);
      return readFileSync(output, "utf8").split("\n").filter((l) => l.startsWith("1\t<doc")).map((l) => l.replace(/^1\t<doc id="(\w+)">$/, "$1"));
    };
    expect(marked([])).toEqual(["b", "c"]);
    expect(marked(["--count", "tokens"])).toEqual([]);
    const refused = vertdup(["paragraphs", corpus, "-o", join(tempDir(), "x.vert"), "--count", "tokens", "--normalize", "nfc", "--quiet"]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/--normalize nfc does not apply to --count tokens/);
  });
});

describe("another normalisation is not mixed in", () => {
  const work = tempDir();
  beforeAll(() => {
    const r = vertdup(["run", corpus, "-o", tempDir(), "-w", work, "--method", "minhash", "--normalize", "none", "--no-report", "--workers", "1", "--quiet"]);
    expect(r.status).toBe(0);
  });

  it("--resume refuses a work directory made with another --normalize", () => {
    const r = vertdup(["run", corpus, "-o", tempDir(), "-w", work, "--method", "minhash", "--resume", "--quiet"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/refusing to resume: the work directory was made with other --normalize \(none there, nfc now/);
  });

  it("--against refuses an index of another --normalize, and reads an index without it (vertdup 0.6.0) as none", () => {
    const against = (args: string[]) => vertdup(["run", corpus, "-o", tempDir(), "--method", "minhash", "--against", work, "--no-report", "--workers", "1", "--quiet", ...args]);
    expect(against([]).stderr).toMatch(/options incompatible with the index \(--normalize: index "none", this run "nfc"\)/);
    const path = join(work, "index.json");
    const index = JSON.parse(readFileSync(path, "utf8"));
    delete index.options["--normalize"];
    writeFileSync(path, JSON.stringify(index));
    expect(against([]).stderr).toMatch(/--normalize: index "none" \(not recorded: made by vertdup 0\.6\.0 or earlier\), this run "nfc"/);
    expect(against(["--normalize", "none"]).status).toBe(0);
  });
});
