import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { compress } from "zstd-napi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, removeTempDirs, tempDir, type CliResult } from "../helpers/cli.js";
import { makeCorpus, rng } from "../helpers/vert.js";

// Seeded random mutations of a small vertical file, fed to every command that reads a corpus.

afterAll(removeTempDirs);

const SEED = 20261123;
const CASES = 28;

/** Well-formed: 10 documents and copies of 4 of them under other ids (duplicates to find). */
const BASE = (() => {
  const docs = makeCorpus(10, 7);
  const copies = makeCorpus(4, 7).replace(/<doc id="d/g, '<doc id="copy');
  return Buffer.from(docs + copies, "utf8");
})();

type Random = () => number;
const pick = <T>(r: Random, items: readonly T[]): T => items[Math.floor(r() * items.length)];

/** Byte offsets where lines start. */
function lineStarts(b: Buffer): number[] {
  const starts = [0];
  for (let i = b.indexOf(0x0a); i !== -1 && i + 1 < b.length; i = b.indexOf(0x0a, i + 1)) starts.push(i + 1);
  return starts;
}

/** [start, end) of a random line (with its line end) whose text matches `re`, if any. */
function lineMatching(r: Random, b: Buffer, re: RegExp): [number, number] | undefined {
  const starts = lineStarts(b);
  const hits = starts.map((s, k) => [s, starts[k + 1] ?? b.length] as [number, number]).filter(([s, e]) => re.test(b.subarray(s, e).toString("latin1")));
  return hits.length === 0 ? undefined : pick(r, hits);
}

const insertAt = (b: Buffer, at: number, bytes: Buffer) => Buffer.concat([b.subarray(0, at), bytes, b.subarray(at)]);
const randomLineStart = (r: Random, b: Buffer) => pick(r, lineStarts(b));

type Mutation = [name: string, apply: (r: Random, b: Buffer) => Buffer];

const TAG = /^<\/?(doc|p|s|head)[\s>]/;

const MUTATIONS: Mutation[] = [
  ["drop a tag line", (r, b) => {
    const l = lineMatching(r, b, TAG);
    return l === undefined ? b : Buffer.concat([b.subarray(0, l[0]), b.subarray(l[1])]);
  }],
  ["duplicate a tag line", (r, b) => {
    const l = lineMatching(r, b, TAG);
    return l === undefined ? b : insertAt(b, l[0], b.subarray(l[0], l[1]));
  }],
  ["nest a <doc>", (r, b) => insertAt(b, randomLineStart(r, b), Buffer.from('<doc id="nested">\nword\n'))],
  ["a stray </doc>", (r, b) => insertAt(b, randomLineStart(r, b), Buffer.from("</doc>\n"))],
  ["random bytes", (r, b) => insertAt(b, Math.floor(r() * b.length), Buffer.from(Array.from({ length: 1 + Math.floor(r() * 24) }, () => Math.floor(r() * 256))))],
  ["invalid UTF-8", (r, b) => insertAt(b, Math.floor(r() * b.length), Buffer.from(pick(r, [[0xc3, 0x28], [0xff], [0xed, 0xa0, 0x80], [0xe2, 0x82]])))],
  ["CRLF line ends", (_r, b) => Buffer.from(b.toString("latin1").replace(/\n/g, "\r\n"), "latin1")],
  ["a CR inside a line", (r, b) => insertAt(b, randomLineStart(r, b) + 1, Buffer.from("\r"))],
  ["odd characters in an id", (r, b) => {
    const l = lineMatching(r, b, /^<doc id="/);
    const id = pick(r, ["a\tb", "a\rb", "a b", "&quot;", "žluť", "a\\tb", "-", "#"]);
    return l === undefined ? b : Buffer.concat([b.subarray(0, l[0]), Buffer.from(`<doc id="${id}">\n`), b.subarray(l[1])]);
  }],
  ["text outside <doc>", (r, b) => insertAt(b, pick(r, [0, b.length]), Buffer.from("stray\ttoken\n"))],
  ["NUL bytes", (r, b) => insertAt(b, Math.floor(r() * b.length), Buffer.alloc(1 + Math.floor(r() * 4)))],
  ["truncated", (r, b) => b.subarray(0, Math.floor(r() * b.length))],
  ["no <doc> tags", (_r, b) => Buffer.from(b.toString("latin1").replace(/^<\/?doc[^\n]*\n/gm, ""), "latin1")],
  ["a mangled <doc> line", (r, b) => {
    const l = lineMatching(r, b, /^<doc /);
    const bad = pick(r, ['<doc id="x\n', '<doc id="a\tb" >\n', "<doc id=>\n", '<doc id="x" dup_of="y" dup_of="z">\n', "<doc\n"]);
    return l === undefined ? b : Buffer.concat([b.subarray(0, l[0]), Buffer.from(bad), b.subarray(l[1])]);
  }],
  ["a byte-order mark", (_r, b) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b])],
  // Lenient irregularities: counted as warnings, so the commands run to the end.
  ["drop or repeat a <p>, </p>, <s> or </s>", (r, b) => {
    const l = lineMatching(r, b, /^<\/?[ps]>/);
    if (l === undefined) return b;
    return r() < 0.5 ? Buffer.concat([b.subarray(0, l[0]), b.subarray(l[1])]) : insertAt(b, l[0], b.subarray(l[0], l[1]));
  }],
  ["empty lines and tags outside documents", (r, b) => insertAt(b, pick(r, lineStarts(b).filter((s) => b.subarray(s, s + 5).toString() === "<doc ")), Buffer.from(pick(r, ["\n\n", "<note/>\n", "<corpus name=\"x\">\n"])))],
  ["ids repeated or missing", (r, b) => Buffer.from(b.toString("latin1").replace(/ id="[^"]*"/g, () => pick(r, ["", ' id="same"', ' id=""'])), "latin1")],
  ["gzip or zstd bytes in a plain file", (r, b) => (r() < 0.5 ? gzipSync(b) : Buffer.from(compress(b)))],
  ["empty", () => Buffer.alloc(0)],
];

/** A line of a few MB (one token, or words and spaces) in a document, before the first or at the end without a line end. */
const HUGE: Mutation[] = (["in a document", "before the first <doc>", "at the end, no line end"] as const).map((where) => [
  `a huge line ${where}`,
  (r, b) => {
    const size = (2 + Math.floor(r() * 3)) << 20;
    const line = Buffer.alloc(size, r() < 0.5 ? "a" : "ab cd ");
    if (where === "at the end, no line end") return Buffer.concat([b, line]);
    line[size - 1] = 0x0a;
    return insertAt(b, where === "before the first <doc>" ? 0 : (lineMatching(r, b, /^<p>/) ?? [0, 0])[1], line);
  },
]);

interface FuzzCase {
  name: string;
  bytes: Buffer;
  file: string;
}

function makeCase(k: number): FuzzCase {
  const r = rng(SEED + k);
  let bytes: Buffer = BASE;
  const names: string[] = [];
  // A few huge-line cases only: each costs every command a few MB of reading.
  // Every mutation is the first of some case; a second one, at random, in some.
  const mutations = k % 8 === 3 ? [HUGE[(k >> 3) % HUGE.length]] : [MUTATIONS[k % MUTATIONS.length], ...(r() < 0.4 ? [pick(r, MUTATIONS)] : [])];
  for (const [name, apply] of mutations) {
    bytes = apply(r, bytes);
    names.push(name);
  }
  const kind = pick(r, ["vert", "vert", "vert", "vert.gz", "vert.zst"]);
  if (kind !== "vert" && r() < 0.9) {
    bytes = kind === "vert.gz" ? gzipSync(bytes) : Buffer.from(compress(bytes));
    if (r() < 0.4) {
      bytes = bytes.subarray(0, r() < 0.2 ? Math.floor(r() * 12) : Math.floor(bytes.length * (0.2 + 0.75 * r())));
      names.push(`truncated .${kind.slice(5)}`);
    }
  } else if (kind !== "vert") {
    names.push("plain text");
  }
  return { name: `#${k}: ${names.join(", ")} (.${kind})`, bytes, file: `in.${kind}` };
}

/** `vertdup args…` without blocking, so that cases run side by side. */
function vertdupAsync(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult & { signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env, FORCE_COLOR: "0" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}

/** Files under `dir`, recursively, relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

let from = "";

beforeAll(async () => {
  // clean needs the run output of the unmutated corpus.
  const dir = tempDir();
  const input = join(dir, "base.vert");
  writeFileSync(input, BASE);
  from = join(dir, "out");
  const r = await vertdupAsync(["run", input, "-o", from, "--method", "minhash", "--workers", "1", "--quiet"], {});
  expect(r.status, r.stderr).toBe(0);
}, 60_000);

describe.concurrent("fuzz: mutated corpora give exit 0 or 1, a message and no partial output", () => {
  for (let k = 0; k < CASES; k++) {
    const c = makeCase(k);
    it(c.name, async () => {
      const dir = tempDir();
      const input = join(dir, c.file);
      writeFileSync(input, c.bytes);
      const tmp = join(dir, "tmp");
      mkdirSync(tmp);
      // Each command writes into a directory of its own; in every third case, the output file
      // of paragraphs and clean is there before and must survive a failure unchanged.
      const before = k % 3 === 0 ? "an earlier output\n" : undefined;
      // The later huge-line cases skip documents over a limit below the huge line, in every
      // command (then clean must accept what run made of them); the earlier ones read it.
      const limits = k % 8 === 3 && k >= 16 ? ["--max-doc-bytes", "1M", "--oversize", "skip"] : [];
      const commands: [what: string, file: string | undefined, args: (out: string) => string[]][] = [
        ["run lsh-cosine", undefined, (out) => ["run", input, "-o", out, "--workers", "1", "--quiet", "--iterations", "3", "--bits", "64"]],
        ["run minhash", undefined, (out) => ["run", input, "-o", out, "--method", "minhash", "--workers", "1", "--quiet"]],
        ["paragraphs", "p.vert", (out) => ["paragraphs", input, "-o", join(out, "p.vert")]],
        // clean reads what run made of this very input, or (when run refused it) the run of the base corpus.
        ["clean", "c.vert", (out) => ["clean", input, "--from", runOk ? join(dir, "run-minhash") : from, "-o", join(out, "c.vert"), ...(k % 2 === 1 ? ["--mark"] : [])]],
      ];
      let runOk = false;
      for (const [what, file, argsFor] of commands) {
        const out = join(dir, what.replace(" ", "-"));
        mkdirSync(out);
        const existing = file !== undefined && before !== undefined ? [file] : [];
        for (const f of existing) writeFileSync(join(out, f), before!);
        const args = [...argsFor(out), ...limits];
        const r = await vertdupAsync(args, { TMPDIR: tmp });
        const seen = `${c.name}\n$ vertdup ${args.join(" ")}\nexit ${r.status} ${r.signal ?? ""}\n${r.stderr}`;
        expect([0, 1], seen).toContain(r.status);
        expect(r.stderr, seen).not.toMatch(/^\s+at /m);
        expect(r.stderr, seen).not.toMatch(/internal error/i);
        expect(readdirSync(tmp), `${seen}\n(temporary files left behind)`).toEqual([]);
        if (what === "run minhash") runOk = r.status === 0;
        // A corpus run accepted, clean accepts with run's own output.
        if (what === "clean" && runOk) expect(r.status, seen).toBe(0);
        if (r.status === 1) {
          expect(r.stderr, seen).toMatch(/^vertdup: error: /m);
          expect(filesUnder(out), seen).toEqual(existing);
          for (const f of existing) expect(readFileSync(join(out, f), "utf8"), seen).toBe(before);
        } else if (file !== undefined) {
          expect(readFileSync(join(out, file), "utf8"), seen).not.toBe(before);
        } else {
          expect(filesUnder(out), seen).toContain("pairs.tsv");
        }
      }
    }, 180_000);
  }
});
