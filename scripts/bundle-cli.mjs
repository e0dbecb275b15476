// Bundles the compiled CLI (dist/src/cli.js) into dist/bundle/: Node then parses a few files
// instead of hundreds of ES modules (yargs alone is dozens), which was most of a small run's
// start-up (README "Paragraph-level deduplication"). Each command's implementation stays a
// dynamic import, so esbuild splits it into chunks of its own that load only when it runs.
// Runs after tsc in `npm run build`. meta.json says which source modules each chunk holds
// (test/e2e/start-up.test.ts reads it).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist", "bundle");

// yargs renders the running command's help before every handler (to have it at hand on a
// failure). cliui and wrap-ansi bring string-width 7, which segments every string with
// Intl.Segmenter: 40 ms of a 1 M-token paragraphs run. yargs' own string-width 8 returns the
// length of printable ASCII at once and is the same function otherwise: one copy for all.
const yargsRequire = createRequire(createRequire(join(root, "package.json")).resolve("yargs"));
const stringWidth = yargsRequire.resolve("string-width");
const oneStringWidth = {
  name: "one-string-width",
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, () => ({ path: stringWidth }));
  },
};

// Chunk names carry a content hash: without emptying the folder, every build adds its chunks
// beside the earlier builds' ones.
rmSync(outdir, { recursive: true, force: true });
// After a command's handler has started, yargs renders the command's help and keeps it for a
// failure's message (usage.js cacheHelpMessage): 0.1 s of CPU on every run. vertdup's failure
// handler never prints that help (cli.ts), and `--help` renders it when asked: not cached.
const noHelpCache = {
  name: "no-help-cache",
  setup(b) {
    b.onLoad({ filter: /yargs[\\/]build[\\/]lib[\\/]usage\.js$/ }, async (args) => {
      const source = readFileSync(args.path, "utf8");
      const cached = "cachedHelpMessage = this.help();";
      if (!source.includes(cached)) throw new Error(`${args.path}: yargs changed; update scripts/bundle-cli.mjs`);
      return { contents: source.replace(cached, ""), loader: "js" };
    });
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: ["dist/src/cli.js"],
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  metafile: true,
  plugins: [oneStringWidth, noHelpCache],
  logLevel: "warning",
  // piscina starts its own worker file from its folder, zstd-napi and msgpackr's extension are
  // native, cli-progress is required at run time (requireCjs): loaded from node_modules.
  external: ["piscina", "msgpackr", "zstd-napi", "cli-progress"],
});
writeFileSync(join(outdir, "meta.json"), JSON.stringify(result.metafile));
