import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { DEFAULT_PARAGRAPH, type CountRule } from "../../src/core/paragraph-options.js";
import { onionParagraphs } from "../../src/paragraph-dedup/onion-sequential.js";
import { vertdup } from "../helpers/cli.js";

const words = (prefix: string, n: number) => Array.from({ length: n }, (_, k) => `${prefix}${k}`);
const para = (tokens: string[]) => `<p>\n${tokens.join("\n")}\n</p>`;

describe("--count tokens: onion 1.2's kept-paragraph rule", () => {
  it("does not count n-grams of a removed paragraph as seen", () => {
    // doc 1: A. doc 2: A followed by 20 new tokens C in one paragraph (30 of 50 tokens seen:
    // a duplicate), then D. doc 3: the 20 tokens of C and 5 more, then F. onion never adds
    // C's n-grams (their paragraph was removed), so doc 3's first paragraph is new and kept;
    // with every earlier occurrence seen (tokens-any) it is removed (14 of 25 tokens covered).
    const A = words("a", 30);
    const C = words("c", 20);
    const text = [
      `<doc id="1">`, para(A), `</doc>`,
      `<doc id="2">`, para([...A, ...C]), para(words("d", 30)), `</doc>`,
      `<doc id="3">`, para([...C, ...words("e", 5)]), para(words("f", 30)), `</doc>`,
      "",
    ].join("\n");
    const marksOf = (count: CountRule) => {
      const dir = mkdtempSync(join(tmpdir(), "onion-rule-"));
      writeFileSync(join(dir, "in.vert"), text);
      const r = vertdup(["paragraphs", join(dir, "in.vert"), "-o", join(dir, "out.vert"), "--mark", "--count", count, "--quiet"]);
      expect(r.status).toBe(0);
      const out = readFileSync(join(dir, "out.vert"), "utf8");
      rmSync(dir, { recursive: true });
      return out.split("\n").filter((l) => l.endsWith("\tc0")).map((l) => l[0]);
    };
    expect(marksOf("tokens")).toEqual(["1", "0"]);
    expect(marksOf("tokens-any")).toEqual(["1", "1"]);
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

  it("reads inputs as the parallel pipeline does: a byte-order mark kept, the same errors on bad input", () => {
    const dir = mkdtempSync(join(tmpdir(), "onion-input-"));
    const run = (name: string, text: string, count: CountRule) => {
      writeFileSync(join(dir, name), text);
      const r = vertdup(["paragraphs", join(dir, name), "-o", join(dir, `${name}.${count}.out`), "--count", count, "--quiet"]);
      return { status: r.status, error: r.stderr.replaceAll(dir, "DIR"), out: r.status === 0 ? readFileSync(join(dir, `${name}.${count}.out`), "utf8") : "" };
    };
    const body = `<doc id="1">\n${para(words("a", 30))}\n</doc>\n`;
    const bom = run("bom.vert", `\uFEFF${body}`, "tokens");
    expect(bom.out).toBe(run("bom.vert", `\uFEFF${body}`, "tokens-any").out);
    expect(bom.out.startsWith("\uFEFF<doc")).toBe(true);
    for (const [name, bad] of [["nested", `<doc id="1">\n<doc id="2">\nx\n</doc>\n`], ["stray", `${body}</doc>\n`], ["outside", `x\n${body}`], ["open", `<doc id="1">\nx\n`], ["crlf", `<doc id="1">\r\nx\n</doc>\n`]]) {
      const onion = run(`${name}.vert`, bad, "tokens");
      const parallel = run(`${name}.vert`, bad, "tokens-any");
      expect(onion.status).not.toBe(0);
      expect(onion.error).toBe(parallel.error);
    }
    rmSync(dir, { recursive: true });
  }, 60_000);
});
