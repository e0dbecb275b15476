import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { attributeValue } from "../../src/corpus/vertical.js";
import { readTsv, removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

afterAll(removeTempDirs);

const words = (prefix: string, n: number) => Array.from({ length: n }, (_, k) => `${prefix}${k}`);

// A chain: b is a with 6 of its 600 words replaced, c is b with 8 more replaced. Term
// frequencies (--weighting tf): cos(a, b) = 0.99, cos(b, c) = 0.9867, cos(a, c) = 0.9767,
// so at cosine ≥ 0.985 c is similar to b and not to a; five unrelated documents besides.
const a = words("w", 600);
const b = a.map((w, k) => (k < 6 ? `x${k}` : w));
const c = b.map((w, k) => (k >= 6 && k < 14 ? `y${k}` : w));
const DOCS: [string, string[]][] = [["a", a], ["b", b], ["c", c], ...Array.from({ length: 5 }, (_, f): [string, string[]] => [`f${f}`, words(`f${f}_`, 300)])];

describe("clean --mark: dup_of and dup_sim of a run whose cluster is a chain", () => {
  it("names for c the document it was verified similar to (b), with their exact cosine", () => {
    const dir = tempDir();
    const corpus = join(dir, "chain.vert");
    writeFileSync(corpus, DOCS.map(([id, t]) => `<doc id="${id}">\n${t.join("\n")}\n</doc>\n`).join(""));
    const work = join(dir, "w");
    const out = join(dir, "out");
    // Candidates from Hamming ≥ 0.9, far below the cosine's own estimate: a–c is a candidate the verification rejects.
    const run = vertdup(["run", corpus, "-o", out, "-w", work, "--weighting", "tf", "--cosine-threshold", "0.985", "--threshold", "0.9", "--no-report", "--quiet"]);
    expect(run.status).toBe(0);
    const ref = join(dir, "ref.tsv");
    expect(vertdup(["similarity", "-w", work, "-o", ref, "--threshold", "0.9", "--quiet"]).status).toBe(0);
    const cosine = new Map(readTsv(ref).map(([x, y, s]) => [`${x} ${y}`, s]));
    expect(Number(cosine.get("a c"))).toBeLessThan(0.985);
    const marked = join(dir, "marked.vert");
    expect(vertdup(["clean", corpus, "--from", out, "-o", marked, "--mark"]).status).toBe(0);
    const marks = new Map(
      readFileSync(marked, "utf8")
        .split("\n")
        .filter((l) => l.startsWith("<doc"))
        .map((l, k) => {
          const at = { file: marked, line: k + 1 };
          return [attributeValue(l, "id", at), ["dup_of", "dup_sim", "dup_measure"].map((name) => attributeValue(l, name, at))];
        }),
    );
    expect(marks.get("a")).toEqual([undefined, undefined, undefined]);
    expect(marks.get("b")).toEqual(["a", cosine.get("a b"), "cosine"]);
    expect(marks.get("c")).toEqual(["b", cosine.get("b c"), "cosine"]);
    expect(Number(marks.get("c")?.[1])).toBeGreaterThanOrEqual(0.985);
  });
});
