import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, UNBUNDLED_CLI, removeTempDirs, tempDir } from "../helpers/cli.js";

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

/** The files (URLs and paths) loaded by `node cli args…`, which must succeed. */
function filesLoadedBy(cli: string, args: string[]): string[] {
  const log = join(dir, `loaded-${runs++}.txt`);
  writeFileSync(log, "");
  const r = spawnSync(process.execPath, ["--import", pathToFileURL(preload).href, cli, ...args], { encoding: "utf8", env: { ...process.env, VERTDUP_LOAD_LOG: log } });
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(log, "utf8").split("\n").filter((l) => l.length > 0);
}

/** The source modules in each file of the bundle (esbuild's metafile, written by npm run build). */
function bundleInputs(): Map<string, string[]> {
  const meta = JSON.parse(readFileSync("dist/bundle/meta.json", "utf8")) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  return new Map(Object.entries(meta.outputs).map(([file, out]) => [`/${file}`, Object.keys(out.inputs).map((input) => `/${input}`)]));
}

/** The modules loaded by `vertdup args…`: with the bundle, those in the bundle's files it loaded. */
function loadedBy(cli: string, args: string[]): string[] {
  const files = filesLoadedBy(cli, args);
  if (cli === UNBUNDLED_CLI) return files;
  const inputs = bundleInputs();
  return files.flatMap((f) => [...inputs].find(([file]) => f.endsWith(file))?.[1] ?? [f]);
}

/** One module of each command's implementation, and the packages only some runs need. */
const IMPLEMENTATIONS = [
  "src/pleb/run-pleb.js",
  "src/report/write-report.js",
  "src/executor/slurm/submit.js",
  "src/methods/registry.js",
  "src/methods/sets/pipeline.js",
  "src/methods/lsh-cosine/pipeline.js",
  "src/cli/reference-command.js",
  "src/clean/clean-corpus.js",
  "src/eval/compare.js",
  "src/paragraph-dedup/pipeline.js",
];
const PACKAGES = ["piscina", "msgpackr", "zstd-napi", "cli-progress"];

function loadedOf(loaded: string[], names: readonly string[]): string[] {
  return names.filter((name) => loaded.some((m) => m.includes(`/dist/${name}`) || m.includes(`/node_modules/${name}/`)));
}

it("names modules that exist: a module moved is followed here", () => {
  expect(IMPLEMENTATIONS.filter((name) => !existsSync(join("dist", name)))).toEqual([]);
});

describe.each([
  ["bundled", CLI],
  ["unbundled", UNBUNDLED_CLI],
])("start-up of the %s CLI loads only what the command needs", (_kind, cli) => {
  it("--version loads no command's implementation", () => {
    const loaded = loadedBy(cli, ["--version"]);
    expect(loaded.some((m) => m.endsWith("/dist/src/cli.js"))).toBe(true);
    expect(loadedOf(loaded, [...IMPLEMENTATIONS, ...PACKAGES])).toEqual([]);
  });

  it("a small paragraphs run loads its own modules only: no pool, no other command, no zstd or progress bars", () => {
    const loaded = loadedBy(cli, smallParagraphsRun());
    expect(loadedOf(loaded, IMPLEMENTATIONS)).toEqual(["src/paragraph-dedup/pipeline.js"]);
    expect(loadedOf(loaded, PACKAGES)).toEqual([]);
  });

  it("a small run without --workers starts no worker pool; with --workers it starts one", () => {
    const out = tempDir();
    const input = join(out, "in.vert");
    writeFileSync(input, ["a", "b", "c"].map((id) => `<doc id="${id}">\n<p>\nHello\nworld\nagain\n</p>\n</doc>\n`).join(""));
    expect(loadedOf(loadedBy(cli, ["run", input, "-o", join(out, "o1")]), ["piscina"])).toEqual([]);
    expect(loadedOf(loadedBy(cli, ["run", input, "-o", join(out, "o2"), "--workers", "2"]), ["piscina"])).toEqual(["piscina"]);
    expect(readFileSync(join(out, "o1", "clusters.tsv"), "utf8")).toBe(readFileSync(join(out, "o2", "clusters.tsv"), "utf8"));
  });
});

function smallParagraphsRun(): string[] {
  const out = tempDir();
  const input = join(out, "in.vert");
  writeFileSync(input, '<doc id="a">\n<p>\nHello\nworld\n</p>\n</doc>\n<doc id="b">\n<p>\nHello\nworld\n</p>\n</doc>\n');
  return ["paragraphs", input, "-o", join(out, "out.vert"), "--ngram", "2"];
}

describe("the bundle", () => {
  it("is what a small paragraphs run parses: no module of yargs or of dist/src, a third of the files at most", () => {
    const files = filesLoadedBy(CLI, smallParagraphsRun()).filter((f) => !f.startsWith("node:"));
    expect(files.filter((f) => f.includes("/node_modules/") || f.includes("/dist/src/"))).toEqual([]);
    const unbundled = filesLoadedBy(UNBUNDLED_CLI, smallParagraphsRun()).filter((f) => !f.startsWith("node:"));
    expect(files.length * 3).toBeLessThanOrEqual(unbundled.length);
  });
});
