import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { DEFAULT_PARAGRAPH } from "../../src/core/paragraph-options.js";
import { onionParagraphs } from "../../src/paragraph-dedup/onion-sequential.js";

const words = (prefix: string, n: number) => Array.from({ length: n }, (_, k) => `${prefix}${k}`);
const para = (tokens: string[]) => `<p>\n${tokens.join("\n")}\n</p>`;

describe("--count tokens: onion 1.2's kept-paragraph rule", () => {
  it("does not count n-grams of a removed paragraph as seen", () => {
    // doc 1 holds A; doc 2 repeats A (removed) then adds B; doc 3 holds A's... B only was in
    // doc 2's removed unit? No: doc 2 = [A, B] keeps B. Doc 3 = [B'] where B' copies a unit
    // removed in doc 2: C is in doc 2 after A, removed by smoothing-free duplicate A+C mix.
    const A = words("a", 30);
    const C = words("c", 30);
    const D = words("d", 30);
    const text = [
      `<doc id="1">`, para(A), `</doc>`,
      // [A-then-C] as one paragraph: 30 of 60 tokens seen → 0.5, not > 0.5: kept... so use more of A.
      `<doc id="2">`, para([...A, ...C.slice(0, 20)]), para(D), `</doc>`,
      `<doc id="3">`, para(C.slice(0, 20).concat(words("e", 5))), para(words("f", 30)), `</doc>`,
      "",
    ].join("\n");
    const o = { ...DEFAULT_PARAGRAPH, count: "tokens" as const, mark: true };
    const marks = onionParagraphs(text, o).output.split("\n");
    // doc 2's first paragraph (A + 20 of C) is a duplicate (30/50 > 0.5): its C n-grams are
    // not added, so doc 3's first paragraph is new and kept — "seen anywhere" would remove it.
    const c0 = marks.findIndex((l) => l === "1\tc0" || l === "0\tc0");
    expect(marks[c0]).toBe("1\tc0");
    const lastC = marks.lastIndexOf("0\tc0");
    expect(lastC).toBeGreaterThan(c0);
  });

  it("equals the real onion 1.2's marks of data-samples/sample.vert.gz on every line", () => {
    const text = gunzipSync(readFileSync("data-samples/sample.vert.gz")).toString("utf8");
    const onion = execFileSync("zstd", ["-dc", "test/data/onion-1.2/sample.marks.zst"], { maxBuffer: 1 << 28 }).toString("utf8").split("\n");
    const ours = onionParagraphs(text, { ...DEFAULT_PARAGRAPH, count: "tokens", mark: true }).output.split("\n");
    let differ = 0;
    for (let i = 0; i < onion.length - 1; i++) if (ours[i][0] !== onion[i][0]) differ++;
    expect(onion.length).toBe(204_844);
    expect(differ).toBe(0);
  }, 60_000);
});
