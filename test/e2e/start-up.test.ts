import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, removeTempDirs, tempDir } from "../helpers/cli.js";

afterAll(removeTempDirs);

/**
 * The CLI loads a command's implementation only when it runs it (#17 item 5): which modules a
 * run loaded, recorded by a module loader hook (ES modules) and the CommonJS cache at exit.
 */
let dir = "";
let preload = "";
beforeAll(() => {
  dir = tempDir();
  writeFileSync(
    join(dir, "hooks.mjs"),
    `import { appendFileSync } from "node:fs";
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, next) { appendFileSync(log, url + "\\n"); return next(url, context); }
`,
  );
  preload = join(dir, "preload.mjs");
  writeFileSync(
    preload,
    `import { register, createRequire } from "node:module";
import { appendFileSync } from "node:fs";
const log = process.env.VERTDUP_LOAD_LOG;
register("./hooks.mjs", import.meta.url, { data: { log } });
const cache = createRequire(import.meta.url).cache;
process.on("exit", () => appendFileSync(log, Object.keys(cache).join("\\n") + "\\n"));
`,
  );
});

let runs = 0;

/** The modules (URLs and paths) loaded by `vertdup args…`, which must succeed. */
function loadedBy(args: string[]): string[] {
  const log = join(dir, `loaded-${runs++}.txt`);
  writeFileSync(log, "");
  const r = spawnSync(process.execPath, ["--import", pathToFileURL(preload).href, CLI, ...args], { encoding: "utf8", env: { ...process.env, VERTDUP_LOAD_LOG: log } });
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(log, "utf8").split("\n").filter((l) => l.length > 0);
}

/** One module of each command's implementation, and the packages only some runs need. */
const IMPLEMENTATIONS = [
  "src/pleb/run-pleb.js",
  "src/report/write-report.js",
  "src/slurm/submit.js",
  "src/methods/run-method.js",
  "src/coordinator/prepare.js",
  "src/coordinator/pool.js",
  "src/exact/exact-command.js",
  "src/clean/clean-corpus.js",
  "src/eval/compare.js",
  "src/paragraph-dedup/run-paragraphs.js",
];
const PACKAGES = ["piscina", "msgpackr", "zstd-napi", "cli-progress"];

function loadedOf(loaded: string[], names: readonly string[]): string[] {
  return names.filter((name) => loaded.some((m) => m.includes(`/dist/${name}`) || m.includes(`/node_modules/${name}/`)));
}

describe("start-up loads only what the command needs", () => {
  it("--version loads no command's implementation", () => {
    const loaded = loadedBy(["--version"]);
    expect(loaded.some((m) => m.endsWith("/dist/src/cli.js"))).toBe(true);
    expect(loadedOf(loaded, [...IMPLEMENTATIONS, ...PACKAGES])).toEqual([]);
  });

  it("a small paragraphs run loads its own modules only: no pool, no other command, no zstd or progress bars", () => {
    const out = tempDir();
    const input = join(out, "in.vert");
    writeFileSync(input, '<doc id="a">\n<p>\nHello\nworld\n</p>\n</doc>\n<doc id="b">\n<p>\nHello\nworld\n</p>\n</doc>\n');
    const loaded = loadedBy(["paragraphs", input, "-o", join(out, "out.vert"), "--ngram", "2"]);
    expect(loadedOf(loaded, IMPLEMENTATIONS)).toEqual(["src/paragraph-dedup/run-paragraphs.js"]);
    expect(loadedOf(loaded, PACKAGES)).toEqual([]);
  });
});
