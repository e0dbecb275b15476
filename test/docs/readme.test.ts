/**
 * The README's commands exist as written and succeed. Each fenced ```sh block after a
 * `<!-- readme-test: KIND -->` line is run here, line by line (comments after `#` dropped),
 * in a temporary directory holding a link to data-samples/, with `vertdup` replaced by the
 * built CLI:
 * - `quickstart`: `npm …` lines; the scripts they name must exist, and `npm start`'s command
 *   (without its build, which the test run has done) is run and must end with report.html's
 *   place and the clean command;
 * - `recipe`: every line, in order, in one directory (a recipe may use an earlier one's files);
 * - `slurm`: no cluster is assumed, so `slurm run` lines run with `--dry-run` (their batch
 *   scripts are written, nothing is submitted); each is also run as the local `run` it stands
 *   for, in a directory of its own, which writes the same outputs and index (docs/slurm.md):
 *   an index a later line names `--against` is copied from there (a dry run makes none).
 */
import { cpSync, readFileSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir } from "../helpers/cli.js";
import { spawn } from "node:child_process";

afterAll(removeTempDirs);

const README = readFileSync("README.md", "utf8");
const CLI = resolve("dist/bundle/cli.js");

/** The commands of the blocks marked `kind`, one string per line. */
export function markedCommands(markdown: string, kind: string): string[][] {
  const blocks: string[][] = [];
  const re = new RegExp(`<!-- readme-test: ${kind} -->\\n\`\`\`sh\\n([^]*?)\`\`\``, "g");
  for (const m of markdown.matchAll(re)) {
    blocks.push(m[1].split("\n").map((l) => l.replace(/\s+#.*$/, "").trim()).filter((l) => l.length > 0));
  }
  return blocks;
}

/** Runs one shell line (no shell: words split on spaces) without blocking vitest's thread. */
async function sh(line: string, cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const words = line.split(/\s+/);
  const [cmd, args] = words[0] === "vertdup" ? [process.execPath, [CLI, ...words.slice(1)]] : [words[0], words.slice(1)];
  const child = spawn(cmd, args, { cwd, env: { ...process.env, FORCE_COLOR: "0" } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => (stdout += c));
  child.stderr.on("data", (c) => (stderr += c));
  const status = await new Promise<number | null>((r) => child.on("close", r));
  return { status, stdout, stderr };
}

function sampleDir(): string {
  const dir = tempDir("vertdup-readme-");
  symlinkSync(resolve("data-samples"), join(dir, "data-samples"));
  return dir;
}

async function expectSuccess(line: string, cwd: string): Promise<string> {
  const r = await sh(line, cwd);
  expect(r.status, `README: \`${line}\` failed:\n${r.stderr}`).toBe(0);
  return r.stdout;
}

describe("README", () => {
  it("is at most 250 lines", () => {
    expect(README.split("\n").length).toBeLessThanOrEqual(251);
  });

  it("quick start: the npm scripts exist, and npm start's command ends with the report and the next command", async () => {
    const [block] = markedCommands(README, "quickstart");
    expect(block).toEqual(["npm install && npm start", "npm test"]);
    const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts.test).toMatch(/vitest run/);
    const start = /^npm run build --silent && node dist\/bundle\/cli\.js (.*)$/.exec(scripts.start)?.[1];
    expect(start, "npm start: the build, then the bundled CLI").toBeDefined();
    const out = await expectSuccess(`vertdup ${start}`, sampleDir());
    expect(out).toMatch(/\nreport: out\/report\.html .*\nnext: vertdup clean data-samples\/sample\.vert\.gz --from out -o cleaned\.vert\n$/);
  });

  it("recipes run as written on the sample corpora", async () => {
    const blocks = markedCommands(README, "recipe");
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const dir = sampleDir();
    for (const line of blocks.flat()) {
      expect(line).toMatch(/^vertdup /);
      await expectSuccess(line, dir);
    }
    expect(readFileSync(join(dir, "cleaned.vert"), "utf8")).toMatch(/^<doc /);
    expect(readFileSync(join(dir, "2026-01.clean.vert"), "utf8")).toMatch(/^<doc /);
  }, 120_000);

  it("the Slurm recipe: batch scripts written (--dry-run), the local run it stands for", async () => {
    const [block] = markedCommands(README, "slurm");
    expect(block.length).toBeGreaterThan(0);
    const dir = sampleDir();
    const local = sampleDir();
    for (const line of block) {
      expect(line).toMatch(/^vertdup slurm /);
      if (line.startsWith("vertdup slurm run ")) {
        await expectSuccess(line.replace("vertdup slurm run ", "vertdup run "), local);
        for (const [, index] of line.matchAll(/--against (\S+)/g)) cpSync(join(local, index), join(dir, index), { recursive: true });
        expect(await expectSuccess(`${line} --dry-run`, dir)).toMatch(/batch scripts written \(not submitted\)/);
      } else await expectSuccess(line, dir);
    }
  }, 120_000);
});
