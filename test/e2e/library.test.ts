import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// Through the package's "exports" (a self-reference), as a program that depends on vertdup.
import { runPipeline, VertdupError } from "vertdup";
import { removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

afterAll(removeTempDirs);

const CORPUS = "data-samples/sample.vert.gz";
const OUTPUTS = ["pairs.tsv", "clusters.tsv", "groups.tsv"];

describe("runPipeline from the package", () => {
  it("is `vertdup run`: the same outputs, its manifest and summary", async () => {
    const dir = tempDir();
    const options = ["--method", "minhash", "--threshold", "0.7", "--no-lowercase", "--workers", "2", "--quiet"];
    const cli = vertdup(["run", CORPUS, "-o", join(dir, "cli"), ...options]);
    expect(cli.status).toBe(0);
    const result = await runPipeline([CORPUS], { outdir: join(dir, "lib"), method: "minhash", threshold: 0.7, lowercase: false, workers: 2, quiet: true });
    expect(result.method).toBe("minhash");
    expect(result.manifest.counts.pairs).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(join(dir, "lib", "manifest.json"), "utf8"))).toEqual(result.manifest);
    const untimed = (summary: string) => summary.trimEnd().replace(/ in [\d.]+ s/, "");
    expect(untimed(result.summary)).toBe(untimed(cli.stdout.replace(/\n(report|next): [^]*$/, "")).replaceAll(join(dir, "cli"), join(dir, "lib")));
    for (const f of OUTPUTS) expect(readFileSync(join(dir, "lib", f), "utf8")).toBe(readFileSync(join(dir, "cli", f), "utf8"));
  });

  it("checks options as the command line does", async () => {
    const outdir = join(tempDir(), "out");
    await expect(runPipeline([CORPUS], { outdir, threshold: 2 })).rejects.toThrow(VertdupError);
    await expect(runPipeline([CORPUS], { outdir, "no-such-option": 1 })).rejects.toThrow(/no-such-option/);
    const other = runPipeline([CORPUS], { outdir, method: "minhash", workdir: join(outdir, "w"), bits: 128 });
    await expect(other).rejects.toThrow(VertdupError);
    await expect(other).rejects.toThrow(/--bits does not apply to --method minhash/);
  });
});
