import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readKeptTerms, readVocabularyHeader } from "../../src/features/vocabulary.js";
import { CLI, removeTempDirs, tempDir } from "../helpers/cli.js";

afterAll(removeTempDirs);

const CORPUS = "data-samples/sample.vert.gz";

function prepare(workdir: string, extra: string[]): void {
  const r = spawnSync(process.execPath, [CLI, "prepare", CORPUS, "-w", workdir, "--shingle-size", "3", "--chunk-size", "40000", "--quiet", ...extra], { encoding: "utf8" });
  expect(r.stderr).not.toMatch(/Error:/);
  expect(r.status).toBe(0);
}

/** The files of the preparatory phase that outputs follow from: shards' df files, vocab.zst, the store. */
function files(workdir: string): Map<string, Buffer> {
  const names = [...readdirSync(join(workdir, "shards")).filter((f) => f.endsWith(".df.zst")).map((f) => `shards/${f}`), "vocab.zst", "store/signatures.u32", "store/offsets.u32", "store/docs.u32"];
  return new Map(names.map((n) => [n, readFileSync(join(workdir, n))]));
}

describe("prepare --shingle-size 3: the vocabulary streamed, the same bytes whatever the workers and --memory", () => {
  it("writes byte-identical df files, vocab.zst and store at 1 and 2 workers and at the smallest --memory", () => {
    const dir = tempDir();
    const runs = [["--workers", "1"], ["--workers", "2"], ["--workers", "2", "--memory", "16M"]].map((extra, k) => {
      const workdir = join(dir, `w${k}`);
      prepare(workdir, extra);
      return workdir;
    });
    const reference = files(runs[0]);
    expect(reference.size).toBeGreaterThan(5);
    for (const workdir of runs.slice(1)) expect(files(workdir)).toEqual(reference);
    // Shingles: most kept terms have df = 1, outside the header the sign pass reads.
    const header = readVocabularyHeader(join(runs[0], "vocab.zst"));
    const kept = readKeptTerms(join(runs[0], "vocab.zst"));
    expect(header.once).toBeGreaterThan(header.repeated);
    expect(kept.terms.length).toBe(header.repeated + header.once);
    const prepared = JSON.parse(readFileSync(join(runs[0], "prepare.json"), "utf8"));
    expect(prepared.counts.keptTerms).toBe(kept.terms.length);
  });
});
