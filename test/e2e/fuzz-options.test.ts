import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CLI, removeTempDirs, tempDir, type CliResult } from "../helpers/cli.js";
import { inProcess } from "../helpers/in-process.js";
import { makeCorpus } from "../helpers/vert.js";

// Every command listed by --help, fed each of its options twice and each with an empty value,
// and the work-directory files of a run, truncated or garbled one at a time, under --resume,
// pleb -w, clean --from and --against: exit 1 or 2 with a message (no stack trace), and no
// output under a final name. The commands run in this process (helpers/in-process.ts).

afterAll(removeTempDirs);

/** Files under `dir`, recursively (`dir` itself when it is a file). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  if (statSync(dir).isFile()) return [dir];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

function expectFailedCleanly(r: CliResult, seen: string): void {
  expect([1, 2], seen).toContain(r.status);
  expect(r.stderr, seen).toMatch(/^vertdup: /m);
  expect(r.stderr, seen).not.toMatch(/^\s+at /m);
  expect(r.stderr, seen).not.toMatch(/internal error/i);
}

interface OptionSpec {
  name: string;
  boolean: boolean;
  /** `[array]`: may be given more than once (`--against`, `--sbatch-arg`). */
  repeatable: boolean;
  required: boolean;
  /** A value the option accepts (its first choice, a number or a path). */
  value: string;
}

interface CommandSpec {
  path: string[];
  positionals: number;
  options: OptionSpec[];
}

/** The help text of `vertdup path… --help`, from the CLI's own yargs definitions. */
async function helpOf(path: string[]): Promise<string> {
  const r = await inProcess([...path, "--help"]);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/** The commands and their options as the help lists them (slurm's actions as commands of their own). */
async function commands(): Promise<CommandSpec[]> {
  const specs: CommandSpec[] = [];
  const walk = async (path: string[]) => {
    const help = await helpOf(path);
    const listed = /\nCommands:\n([\s\S]*?)\n\n/.exec(help)?.[1] ?? "";
    const subcommands = [...listed.matchAll(new RegExp(`^  vertdup ${path.map((p) => `${p} `).join("")}([a-z-]+)`, "gm"))].map((m) => m[1]);
    for (const name of subcommands) {
      const sub = [...path, name];
      const text = await helpOf(sub);
      if (/\nCommands:\n/.test(text)) {
        await walk(sub);
        continue;
      }
      const usage = text.split("\n")[0];
      const options: OptionSpec[] = [];
      // An option's lines: `  -o, --outdir  text … [string] [required]` (the tags may wrap to the next lines).
      const blocks = text.split("\nExamples:")[0].split(/\n(?= {2}(?:-\w, | {4})?--)/).filter((b) => /^ {2}(?:-\w, | {4})?--/.test(b));
      for (const block of blocks) {
        const name = /--([a-z0-9-]+)/.exec(block)![1];
        if (name === "help" || name === "version") continue;
        const flat = block.replace(/\s+/g, " ");
        const choice = /\[choices: "([^"]+)"/.exec(flat);
        const value = choice !== null ? choice[1] : /\[number\]/.test(flat) ? "1" : `x-${name}`;
        options.push({ name, boolean: /\[boolean\]/.test(flat), repeatable: /\[array\]/.test(flat), required: /\[required\]/.test(flat), value });
      }
      specs.push({ path: sub, positionals: (usage.match(/<[^>]+>/g) ?? []).length, options });
    }
  };
  await walk([]);
  return specs;
}

let specs: CommandSpec[] = [];

beforeAll(async () => {
  specs = await commands();
}, 60_000);

/** The command with every required option and positional given, all naming paths under `dir` that do not exist. */
function baseArgs(spec: CommandSpec, dir: string, except?: string): string[] {
  const args = [...spec.path];
  const usage = spec.positionals;
  for (let k = 0; k < usage; k++) args.push(join(dir, `in-${k}.vert`));
  for (const o of spec.options) {
    if (!o.required || o.name === except) continue;
    args.push(`--${o.name}`, o.boolean ? "true" : o.value.startsWith("x-") ? join(dir, o.value) : o.value);
  }
  // Slurm's submissions write their scripts only: no cluster needed.
  if (spec.path[0] === "slurm" && spec.options.some((o) => o.name === "dry-run")) args.push("--dry-run");
  return args;
}

describe("fuzz: every option of every command given twice or empty", () => {
  // No Slurm commands: a client without a controller waits 10 s for scontrol's answer at each submission.
  beforeAll(() => void vi.stubEnv("PATH", tempDir()));
  afterAll(() => void vi.unstubAllEnvs());

  it("lists the commands of --help, slurm's actions among them", () => {
    expect(specs.map((s) => s.path.join(" "))).toEqual(expect.arrayContaining(["run", "calibrate", "prepare", "pleb", "clean", "short-long", "paragraphs", "similarity", "hamming-full", "compare", "slurm run", "slurm paragraphs", "slurm status"]));
    for (const s of specs) expect(s.options.length, s.path.join(" ")).toBeGreaterThan(0);
  });

  it("refuses each, exit 1 or 2, naming the option, writing nothing", async () => {
    for (const spec of specs) {
      for (const o of spec.options) {
        // Two values that differ: the second a path, a number or a choice other than the first.
        const values = (dir: string) => (o.value.startsWith("x-") ? [join(dir, o.value), join(dir, `${o.value}-2`)] : [o.value, o.value === "1" ? "2" : o.value]);
        const cases: [what: string, args: (dir: string) => string[]][] = [
          ["twice", (dir) => [...baseArgs(spec, dir, o.name), ...(o.boolean ? [`--${o.name}`, `--${o.name}`] : values(dir).flatMap((v) => [`--${o.name}`, v]))]],
          ["empty", (dir) => [...baseArgs(spec, dir, o.name), `--${o.name}`, ""]],
          // A flag and its negation: given twice too.
          ...(o.boolean ? [["twice", (dir: string) => [...baseArgs(spec, dir, o.name), `--${o.name}`, `--no-${o.name}`]] as [string, (dir: string) => string[]]] : []),
        ];
        for (const [what, argsFor] of cases) {
          const dir = tempDir();
          const args = argsFor(dir);
          const r = await inProcess(args);
          const seen = `--${o.name} ${what}\n$ vertdup ${args.map((a) => JSON.stringify(a)).join(" ")}\nexit ${r.status}\n${r.stderr}`;
          expectFailedCleanly(r, seen);
          // Refused for itself, or for what it does with the others (`--pairs-limit does nothing with --pairs edges`); a
          // flag's '' is a positional argument (here an input that is missing), and a repeatable option twice is two
          // values: these fail on the missing input.
          if (o.boolean && what === "twice") {
            // Three times where the base arguments have the flag already (slurm's --dry-run).
            const times = args.filter((a) => a === `--${o.name}` || a === `--no-${o.name}`).length;
            expect(r.stderr, seen).toMatch(new RegExp(`--${o.name} given ${times === 2 ? "twice" : `${times} times`} \\((true|false)(, (true|false))+\\): it takes one value`));
          }
          else if (!o.boolean && !(o.repeatable && what === "twice")) expect(r.stderr, seen).toMatch(new RegExp(`--${o.name} |-\\w needs a value`));
          // Nothing at all: no output, and no work directory (the inputs are checked before it is made).
          expect(readdirSync(dir), seen).toEqual([]);
        }
      }
    }
  }, 300_000);
});

describe("fuzz: a run's work-directory and output files, each truncated or garbled", () => {
  let dir = "";
  let corpus = "";
  let workdir = "";
  let outdir = "";

  beforeAll(() => {
    dir = tempDir();
    corpus = join(dir, "c.vert");
    writeFileSync(corpus, makeCorpus(12, 9) + makeCorpus(3, 9).replace(/<doc id="d/g, '<doc id="copy'));
    workdir = join(dir, "w");
    outdir = join(dir, "o");
    const r = spawnSync(process.execPath, [CLI, "run", corpus, "-w", workdir, "-o", outdir, "--workers", "1", "--quiet", "--iterations", "3"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
  }, 60_000);

  /** One file of each kind a run leaves (JSON, markers of each step, zstd, raw arrays), not all 100 sort keys. */
  function sampleFiles(root: string): string[] {
    const seen = new Set<string>();
    return filesUnder(root).filter((f) => {
      const kind = f.replace(/\d+/g, "N");
      if (seen.has(kind)) return false;
      seen.add(kind);
      return true;
    });
  }

  it("--resume, pleb -w, clean --from and --against fail with exit 1 and a message, or succeed with the same outputs", async () => {
    const expected = new Map(filesUnder(outdir).filter((f) => f !== "report.html" && f !== "manifest.json").map((f) => [f, readFileSync(join(outdir, f))]));
    const targets = [...sampleFiles(workdir).map((f) => ["w", f] as const), ...["clusters.tsv", "manifest.json"].map((f) => ["o", f] as const)];
    expect(targets.length).toBeGreaterThan(10);
    let k = 0;
    for (const [t, [where, file]] of targets.entries()) {
      // One damage per file, alternately; each command over a third of the files, the JSON files under all of them.
      for (const damage of [t % 2 === 0 ? "truncated" : "garbled"] as const) {
        const copy = join(dir, `case-${k++}`);
        const w = join(copy, "w");
        const o = join(copy, "o");
        cpSync(workdir, w, { recursive: true });
        cpSync(outdir, o, { recursive: true });
        const path = join(where === "w" ? w : o, file);
        const bytes = readFileSync(path);
        if (damage === "truncated") truncateSync(path, bytes.length >> 1);
        else writeFileSync(path, Buffer.from(bytes.map((b, i) => (i % 3 === 1 ? b ^ 0x5a : b))));
        const commands: [args: string[], output: string][] =
          where === "o"
            ? [[["clean", corpus, "--from", o, "-o", join(copy, "clean.vert")], join(copy, "clean.vert")]]
            : [
                [["run", corpus, "-w", w, "-o", join(copy, "resumed"), "--resume", "--workers", "1", "--quiet", "--iterations", "3"], join(copy, "resumed")],
                [["pleb", "-w", w, "-o", join(copy, "pleb"), "--workers", "1", "--quiet", "--iterations", "3"], join(copy, "pleb")],
                [["run", corpus, "--against", w, "-o", join(copy, "against"), "--workers", "1", "--quiet", "--iterations", "3"], join(copy, "against")],
              ];
        // A JSON file under each command; another under --resume or pleb alternately, and a store file (what an index
        // adds to --against) under --against too: a run --against reads the corpus anew, the costliest case.
        const chosen = where === "o" || file.endsWith(".json") ? commands : [commands[t % 2], ...(file.startsWith("store/") ? [commands[2]] : [])];
        for (const [args, output] of chosen) {
          const r = await inProcess(args);
          const seen = `${file} ${damage}\n$ vertdup ${args.join(" ")}\nexit ${r.status}\n${r.stderr}`;
          if (r.status === 0) {
            // Accepted only when the damaged file was not needed: then the outputs are the run's.
            if (args[0] === "run" && args.includes("--resume")) {
              for (const [f, b] of expected) expect(readFileSync(join(output, f)).equals(b), `${seen}\n${f} differs`).toBe(true);
            }
            continue;
          }
          expectFailedCleanly(r, seen);
          expect(filesUnder(output), seen).toEqual([]);
        }
      }
    }
  }, 300_000);
});
