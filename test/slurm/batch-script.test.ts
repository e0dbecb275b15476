import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ARRAY_TASK_ID, renderBatchScript, sbatchWord, shellWord } from "../../src/executor/slurm/batch-script.js";
import { pipelineOf, type JobSettings } from "../../src/methods/registry.js";
import { pipelineJobs } from "../../src/executor/slurm/jobs.js";
import type { LshCosineSettings } from "../../src/methods/lsh-cosine/pipeline.js";
import type { SetMethodSettings } from "../../src/methods/sets/pipeline.js";
import type { MethodRun, SetMethod } from "../../src/methods/sets/set-method.js";
import { DEFAULT_PREPARE } from "../../src/core/options.js";
import { phaseJobs, splitArrays } from "../../src/executor/slurm/submit.js";
import { VertdupError } from "../../src/core/errors.js";
import { CLI, removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

afterAll(removeTempDirs);

/**
 * The arguments sbatch takes from one `#SBATCH` line: a port of `_get_argument` in Slurm's
 * src/sbatch/opt.c (white space separates, `"…"`/`'…'` group, backslash escapes, an unquoted
 * `#` ends the line).
 */
function sbatchArgs(line: string): string[] {
  const args: string[] = [];
  let i = 0;
  const space = (c: string) => /\s/.test(c);
  for (;;) {
    while (i < line.length && space(line[i])) i++;
    if (i >= line.length) return args;
    let arg = "";
    let quote = "";
    let escaped = false;
    let comment = false;
    while (i < line.length && (quote !== "" || !space(line[i]))) {
      const c = line[i];
      if (escaped) escaped = false;
      else if (c === "\\") {
        escaped = true;
        i++;
        continue;
      } else if (quote !== "") {
        if (c === quote) {
          quote = "";
          i++;
          continue;
        }
      } else if (c === '"' || c === "'") {
        quote = c;
        i++;
        continue;
      } else if (c === "#") {
        comment = true;
        break;
      }
      arg += c;
      i++;
    }
    if (quote !== "") throw new Error(`unmatched ${quote} in ${line}`);
    if (arg !== "") args.push(arg);
    if (comment) return args;
  }
}

/** Every `#SBATCH` argument of a script, in order. */
function headerArgs(script: string): string[] {
  return script
    .split("\n")
    .filter((l) => l.startsWith("#SBATCH"))
    .flatMap((l) => sbatchArgs(l.slice("#SBATCH".length)));
}

const SETTINGS = { cpusPerTask: 4, extra: ["--account=corpora"], logDir: "/shared/w/slurm/logs", partition: "long", arrayParallelism: 3, time: "02:00:00", mem: "8G" };

describe("batch scripts", () => {
  it("render an array job with its Slurm options and the task command, every word quoted", () => {
    const text = renderBatchScript({ name: "count", arraySize: 5, command: ["/usr/bin/node", "/opt/vertdup/dist/src/cli.js", "task", "count", "-w", "/shared/w", "--index", ARRAY_TASK_ID, "--count", "5"] }, SETTINGS);
    expect(text.split("\n")).toEqual([
      "#!/usr/bin/env bash",
      "#SBATCH --job-name=vertdup-count",
      "#SBATCH --cpus-per-task=4",
      "#SBATCH --array=0-4%3",
      "#SBATCH --output=/shared/w/slurm/logs/%x-%A_%a.log",
      "#SBATCH --partition=long",
      "#SBATCH --time=02:00:00",
      "#SBATCH --mem=8G",
      "#SBATCH --account=corpora",
      "set -euo pipefail",
      `exec '/usr/bin/node' '/opt/vertdup/dist/src/cli.js' 'task' 'count' '-w' '/shared/w' '--index' "$SLURM_ARRAY_TASK_ID" '--count' '5'`,
      "",
    ]);
  });

  it("quote every shell word: nothing inside expands", () => {
    expect(shellWord("/a b/c")).toBe("'/a b/c'");
    expect(shellWord("it's")).toBe("'it'\\''s'");
    expect(shellWord("wd$HOME")).toBe("'wd$HOME'");
    expect(shellWord("")).toBe("''");
  });

  it("write #SBATCH arguments that sbatch reads back as the intended words", () => {
    for (const arg of ["--comment=a b", `--comment=it's "x" #1 \\ $HOME \`id\``, "--output=/p q/%x.log", "--qos=normal"]) {
      expect(sbatchArgs(sbatchWord("--sbatch-arg", arg))).toEqual([arg]);
    }
  });

  it("write `--sbatch-arg \"--qos normal\"` as the two words sbatch takes, `=` forms as one", () => {
    const text = renderBatchScript({ name: "merge", command: [] }, { ...SETTINGS, extra: ["--qos normal", "-p  long q", "--comment=a b", "--account=x"] });
    expect(text.split("\n").filter((l) => l.startsWith("#SBATCH --qos") || l.startsWith("#SBATCH -p"))).toEqual(["#SBATCH --qos normal", '#SBATCH -p "long q"']);
    expect(headerArgs(text).slice(-6)).toEqual(["--qos", "normal", "-p", "long q", "--comment=a b", "--account=x"]);
  });

  it("vertdup slurm run takes --sbatch-arg with its value as the next argument", () => {
    const base = tempDir();
    const workdir = join(base, "w");
    const r = vertdup(["slurm", "run", "data-samples/sample.vert.gz", "-w", workdir, "-o", join(base, "out"), "--dry-run", "--sbatch-arg", "--qos normal", "--sbatch-arg", "--account=x", "--sbatch-arg=--comment=c"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(headerArgs(readFileSync(join(workdir, "slurm", "2-count.sbatch"), "utf8")).slice(-4)).toEqual(["--qos", "normal", "--account=x", "--comment=c"]);
  });

  it("vertdup slurm run that fails before any script is written leaves no lock for jobs that never come", () => {
    const base = tempDir();
    const workdir = join(base, "w");
    const r = vertdup(["slurm", "run", join(base, "missing.vert"), "-w", workdir, "-o", join(base, "out"), "--dry-run"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/missing\.vert/);
    expect(existsSync(join(workdir, "vertdup.lock"))).toBe(false);
    // The same command with the input there runs as if the first had never been.
    const again = vertdup(["slurm", "run", "data-samples/sample.vert.gz", "-w", workdir, "-o", join(base, "out"), "--dry-run"]);
    expect(again.stderr).toBe("");
    expect(again.status).toBe(0);
  });

  it("vertdup slurm run --method writes the method's scripts and takes its options as run does", () => {
    const base = tempDir();
    const workdir = join(base, "w");
    const r = vertdup(["slurm", "run", "data-samples/sample.vert.gz", "-w", workdir, "-o", join(base, "out"), "--method", "minhash", "--shingle-size", "3", "--threshold", "0.7", "--tasks", "2", "--dry-run"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(readdirSync(join(workdir, "slurm")).filter((f) => f.endsWith(".sbatch"))).toEqual(["1-plan.sbatch", "2-features.sbatch", "3-search.sbatch", "4-output.sbatch", "5-index.sbatch"]);
    const settings = JSON.parse(readFileSync(join(workdir, "slurm", "run.json"), "utf8")) as { method: string; run: { features: { shingleSize: number; bands: number; rows: number }; search: { threshold: number } } };
    // Bands and rows derived from the threshold, as run derives them.
    expect(settings.method).toBe("minhash");
    expect(settings.run.features).toMatchObject({ shingleSize: 3, bands: 23, rows: 5 });
    expect(settings.run.search.threshold).toBe(0.7);
  });

  it("vertdup slurm run refuses an option the method does not use, before any work", () => {
    const base = tempDir();
    const workdir = join(base, "w");
    for (const [method, option] of [["minhash", ["--iterations", "5"]], ["exact", ["--shingle-size", "3"]], ["lsh-cosine", ["--num-perm", "64"]]] as const) {
      const r = vertdup(["slurm", "run", "data-samples/sample.vert.gz", "-w", workdir, "-o", join(base, "out"), "--method", method, ...option, "--dry-run"]);
      expect(r.stderr).toContain(`${option[0]} does not apply to --method ${method}`);
      expect(r.status).not.toBe(0);
      expect(existsSync(workdir)).toBe(false);
    }
  });

  it("vertdup slurm run refuses a bad --against use, before any work", () => {
    const base = tempDir();
    const workdir = join(base, "w");
    const refused: [string[], string][] = [
      [["--against", base], `${base}: not an index`],
      [["--update"], "--update appends to one index: give exactly one --against (none given)"],
      [["--against", base, "--against", base], `${base}: the index is given twice with --against`],
      [["--against", base, "--estimate-recall"], "--estimate-recall and --target-recall are not available with --against"],
      [["--against", base, "--max-df", "0.5"], "--min-df and --max-df cannot be used with --against"],
      [["--method", "minhash", "--update"], "--update appends to one index: give exactly one --against (none given)"],
      [["--method", "exact", "--against", join(base, "none")], `${join(base, "none")}: no such index`],
      [["--method", "exact", "--against", base], `${base}: not an index`],
    ];
    for (const [args, message] of refused) {
      const r = vertdup(["slurm", "run", "data-samples/sample.vert.gz", "-w", workdir, "-o", join(base, "out"), ...args, "--dry-run"]);
      expect(r.stderr).toContain(message);
      expect(r.status).not.toBe(0);
      expect(existsSync(workdir)).toBe(false);
    }
  });

  it("refuse what an #SBATCH line cannot carry, naming the option", () => {
    const bad: [Partial<typeof SETTINGS>, RegExp][] = [
      [{ partition: "long\ntouch PWNED" }, /^--partition: control character \\x0a/],
      [{ time: "1:00\r" }, /^--time: control character \\x0d/],
      [{ mem: "8G\x00" }, /^--mem: control character \\x00/],
      [{ extra: ["--qos=x\ntouch PWNED"] }, /^--sbatch-arg: control character \\x0a/],
      [{ extra: ["--comment=\x1b[31m"] }, /^--sbatch-arg: control character \\x1b/],
      [{ extra: ["--comment=my hetjob"] }, /^--sbatch-arg: sbatch reads "packjob" or "hetjob"/],
      [{ extra: [""] }, /^--sbatch-arg: an empty argument/],
      [{ logDir: "/w\nx/slurm/logs" }, /^-w\/--workdir: control character \\x0a/],
      [{ logDir: "/w\\x/slurm/logs" }, /^-w\/--workdir: sbatch --output cannot name a path with a backslash/],
    ];
    for (const [change, message] of bad) {
      const render = () => renderBatchScript({ name: "merge", command: ["/usr/bin/node"] }, { ...SETTINGS, ...change });
      expect(render).toThrow(VertdupError);
      expect(render).toThrow(message);
    }
    expect(() => renderBatchScript({ name: "merge", command: ["/usr/bin/node", "/w\n/x"] }, SETTINGS)).toThrow(/control character \\x0a/);
  });

  it("write a % of the log directory as %% (sbatch's filename pattern)", () => {
    const text = renderBatchScript({ name: "merge", command: [] }, { ...SETTINGS, logDir: "/w/100%/logs" });
    expect(headerArgs(text)).toContain("--output=/w/100%%/logs/%x-%j.log");
  });

  it("chain the phases of a run, arrays where the work splits", () => {
    const jobs = phaseJobs("/shared/w", jobsOf(lshSettings(6, 100)), "t0");
    expect(jobs.map((j) => [j.name, j.arraySize])).toEqual([
      ["plan", undefined],
      ["count", 6],
      ["vocabulary", undefined],
      ["sign", 6],
      ["merge", undefined],
      ["pleb", 10],
      ["output", undefined],
    ]);
    expect(jobs[5].command.slice(2)).toEqual(["task", "pleb", "-w", "/shared/w", "--index", ARRAY_TASK_ID, "--count", "10", "--token", "t0"]);
    expect(jobs[6].command.slice(2)).toEqual(["task", "output", "-w", "/shared/w", "--token", "t0"]);
  });

  it("chain a set method's chunk plan, its features array and its search, output, calibrate and index jobs", () => {
    const request = { sample: 100, targetRecall: 0.9, sampling: "stratified" as const };
    for (const method of ["exact", "simhash384", "minhash", "paragraphs"] as const) {
      const calibrate = method === "exact" ? {} : { calibrate: request };
      const settings: JobSettings = { method, inputs: ["/shared/c.vert"], outdir: "/shared/o", run: { ...setRun(method), saveIndex: true, ...calibrate }, exec: {}, tasks: 4 };
      const jobs = phaseJobs("/shared/w", jobsOf(settings), "t0");
      expect(jobs.map((j) => [j.name, j.arraySize])).toEqual([
        ["plan", undefined],
        ["features", 4],
        ["search", undefined],
        ["output", undefined],
        ...(method === "exact" ? [] : [["calibrate", undefined]]),
        ["index", undefined],
      ]);
      expect(jobs[0].command.slice(2)).toEqual(["task", "plan", "-w", "/shared/w", "--token", "t0"]);
      expect(jobs[1].command.slice(2)).toEqual(["task", "features", "-w", "/shared/w", "--index", ARRAY_TASK_ID, "--count", "4", "--token", "t0"]);
      expect(jobs[2].command.slice(2)).toEqual(["task", "search", "-w", "/shared/w", "--token", "t0"]);
    }
  });

  it("run a set method against indices as one supplement job, once per batch appended", () => {
    const settings = (update: boolean, outdir: string): SetMethodSettings => ({ method: "minhash", inputs: ["/shared/c.vert"], outdir, run: { ...setRun("minhash"), against: ["/shared/index"], update }, exec: {}, tasks: 4 });
    const jobs = phaseJobs("/shared/w", jobsOf(settings(true, "/shared/o")), "t0");
    expect(jobs.map((j) => [j.name, j.arraySize])).toEqual([["supplement", undefined]]);
    expect(pipelineOf("/shared/w", settings(true, "/shared/o")).steps.map((s) => s.name)).toEqual(["plan", "features", "search", "output", "append"]);
    // With --update another -o does not run the job again (the batch is appended once); without, it does.
    const marker = (s: SetMethodSettings) => pipelineOf("/shared/w", s).unit?.marker;
    expect(marker(settings(true, "/shared/other"))).toBe(marker(settings(true, "/shared/o")));
    expect(marker(settings(false, "/shared/other"))).not.toBe(marker(settings(false, "/shared/o")));
  });

  it("run lsh-cosine against indices as one supplement job, once per batch appended", () => {
    const settings = lshAgainstSettings(true, "/shared/o");
    const jobs = phaseJobs("/shared/w", jobsOf(settings), "t0");
    expect(jobs.map((j) => [j.name, j.arraySize])).toEqual([["supplement", undefined]]);
    expect(jobs[0].command.slice(2)).toEqual(["task", "supplement", "-w", "/shared/w", "--token", "t0"]);
    // With --update another -o does not run the job again (the batch is appended once); without, it does.
    const marker = (s: LshCosineSettings) => pipelineOf("/shared/w", s).unit?.marker;
    expect(marker(lshAgainstSettings(true, "/shared/other"))).toBe(marker(settings));
    expect(marker(lshAgainstSettings(false, "/shared/other"))).not.toBe(marker(lshAgainstSettings(false, "/shared/o")));
    expect(marker({ ...settings, againstScan: "full" })).not.toBe(marker(settings));
  });

  it("split an array larger than MaxArraySize into parts whose task ids add the part's offset", () => {
    const jobs = phaseJobs("/shared/w", jobsOf(lshSettings(7, 30)), "t0");
    const stages = splitArrays(jobs, 3);
    expect(stages.map((stage) => stage.map((j) => [j.name, j.arraySize]))).toEqual([
      [["plan", undefined]],
      [["count-1", 3], ["count-2", 3], ["count-3", 1]],
      [["vocabulary", undefined]],
      [["sign-1", 3], ["sign-2", 3], ["sign-3", 1]],
      [["merge", undefined]],
      [["pleb", 3]],
      [["output", undefined]],
    ]);
    // Every index 0..6 is run exactly once: part offsets plus array ids 0..size-1.
    const indices = stages[1].flatMap((j) => Array.from({ length: j.arraySize ?? 0 }, (_, id) => id + ((j.command[j.command.indexOf("--index") + 1] as { plus?: number }).plus ?? 0)));
    expect(indices).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(stages[1][2].command.slice(2)).toEqual(["task", "count", "-w", "/shared/w", "--index", { env: "SLURM_ARRAY_TASK_ID", plus: 6 }, "--count", "7", "--token", "t0"]);
    expect(splitArrays(jobs, 7).map((stage) => stage.length)).toEqual([1, 1, 1, 1, 1, 1, 1]);
  });

  it("an offset task id is the array task id plus the offset when bash runs the script", () => {
    const cwd = tempDir();
    const script = join(cwd, "task.sbatch");
    const argvFile = join(cwd, "argv");
    const stub = join(cwd, "stub.sh");
    writeFileSync(stub, `exec() { printf '%s\\0' "$@" > "$ARGV_FILE"; }\n`);
    writeFileSync(script, renderBatchScript({ name: "count-2", arraySize: 2, command: ["/usr/bin/node", "--index", { env: "SLURM_ARRAY_TASK_ID", plus: 1000 }] }, SETTINGS));
    const r = spawnSync("bash", [script], { encoding: "utf8", env: { PATH: process.env.PATH, BASH_ENV: stub, ARGV_FILE: argvFile, SLURM_ARRAY_TASK_ID: "7" } });
    expect(r.stderr).toBe("");
    expect(readFileSync(argvFile, "utf8").split("\0")).toEqual(["/usr/bin/node", "--index", "1007", ""]);
  });
});

/** Any code point but NUL (fc.string's "binary" unit is as wide but 100 times slower to draw). */
const codePoint = fc.integer({ min: 1, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff).map((c) => String.fromCodePoint(c));
/** Words that a shell or sbatch would read specially, mixed with any code point. */
const SPECIAL = [..."'\"\\$`!*?[]{}()<>|&;#~= %\t\n\r \u00a0é日😀"].concat(["$HOME", "$(id)", "'\\''", "--", "-e", "packjob"]);
const word = (control: boolean) =>
  fc
    .array(fc.oneof(fc.constantFrom(...SPECIAL), fc.string({ unit: codePoint, maxLength: 3 })), { maxLength: 6 })
    .map((parts) => (control ? parts.join("") : parts.join("").replace(/[\x00-\x1f\x7f]/g, "")));

/**
 * The words bash passes to printf: what the text, as a command's arguments, means to the
 * shell. Standard input is not Node's pipe: bash -c with a socket there reads ~/.bashrc.
 */
function bashWords(text: string): string[] {
  const r = spawnSync("bash", ["-c", `printf '%s\\0' ${text}`], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH } });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  const words = r.stdout.split("\0");
  expect(words.pop()).toBe("");
  return words;
}

describe("shell quoting round trips through bash (property)", () => {
  it("shellWord: bash reads back every word as it was, control characters included", () => {
    fc.assert(
      fc.property(fc.array(word(true), { minLength: 1, maxLength: 8 }), (words) => {
        expect(bashWords(words.map(shellWord).join(" "))).toEqual(words);
      }),
      { numRuns: 60 },
    );
  });

  it("a batch script's command: exactly its words, the array task id from the environment", () => {
    const cwd = tempDir();
    const script = join(cwd, "task.sbatch");
    const argvFile = join(cwd, "argv");
    const stub = join(cwd, "stub.sh");
    writeFileSync(stub, `exec() { printf '%s\\0' "$@" > "$ARGV_FILE"; }\n`);
    fc.assert(
      fc.property(fc.array(fc.oneof(word(false), fc.constant(ARRAY_TASK_ID)), { maxLength: 8 }), word(false), (command, taskId) => {
        writeFileSync(script, renderBatchScript({ name: "count", arraySize: 2, command: ["/usr/bin/node", ...command] }, SETTINGS));
        const r = spawnSync("bash", [script], { encoding: "utf8", env: { PATH: process.env.PATH, BASH_ENV: stub, ARGV_FILE: argvFile, SLURM_ARRAY_TASK_ID: taskId } });
        expect(r.stderr).toBe("");
        expect(r.status).toBe(0);
        const argv = readFileSync(argvFile, "utf8").split("\0");
        expect(argv.pop()).toBe("");
        expect(argv).toEqual(["/usr/bin/node", ...command.map((w) => (typeof w === "string" ? w : taskId))]);
      }),
      { numRuns: 60 },
    );
  });

  it("sbatchWord: sbatch reads back every argument it accepts as one word", () => {
    fc.assert(
      fc.property(word(false).filter((w) => w !== "" && !/packjob|hetjob/i.test(w)), (arg) => {
        expect(sbatchArgs(sbatchWord("--sbatch-arg", arg))).toEqual([arg]);
      }),
      { numRuns: 500 },
    );
  });
});

describe("vertdup slurm run --dry-run with a hostile work directory path", () => {
  const CORPUS = "data-samples/sample.vert.gz";
  const COMMENT = `--comment=it's "quoted" #1 $HOME \`touch CANARY\``;

  /** Runs a script under bash with `exec` replaced by a stub that records its argv. */
  function runStubbed(script: string, cwd: string): string[] {
    const argvFile = join(cwd, "argv");
    const stub = join(cwd, "stub.sh");
    writeFileSync(stub, `exec() { printf '%s\\0' "$@" > "$ARGV_FILE"; }\n`);
    const r = spawnSync("bash", [script], { cwd, encoding: "utf8", env: { PATH: process.env.PATH, BASH_ENV: stub, ARGV_FILE: argvFile, SLURM_ARRAY_TASK_ID: "1", HOME: "/nonexistent-home" } });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const words = readFileSync(argvFile, "utf8").split("\0");
    expect(words.pop()).toBe("");
    return words;
  }

  for (const name of ["w d$(touch CANARY)`touch CANARY`'q\"dq;touch CANARY", "wd$HOME", "100%x#y\\z"]) {
    it(`runs exactly the task commands for ${JSON.stringify(name)}`, () => {
      const base = tempDir();
      const workdir = join(base, name);
      const refused = name.includes("\\");
      const r = vertdup(["slurm", "run", CORPUS, "-w", workdir, "-o", join(base, "out"), "--tasks", "2", "--iterations", "4", "--iterations-per-group", "2", "--partition", "p q", `--sbatch-arg=${COMMENT}`, "--dry-run"]);
      if (refused) {
        // A backslash would switch off sbatch's %x/%A/%a in --output: refused before any work.
        expect(r.stderr).toMatch(/^vertdup: error: -w\/--workdir: sbatch --output cannot name a path with a backslash: ".*"\n$/);
        expect(r.status).toBe(1);
        expect(existsSync(workdir)).toBe(false);
        return;
      }
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      const scripts = r.stdout.split("\n").slice(1, -1);
      expect(scripts.map((s) => s.slice(join(workdir, "slurm").length + 1))).toEqual(["1-plan.sbatch", "2-count.sbatch", "3-vocabulary.sbatch", "4-sign.sbatch", "5-merge.sbatch", "6-pleb.sbatch", "7-output.sbatch", "8-index.sbatch"]);
      const logs = join(workdir, "slurm", "logs").replace(/%/g, "%%");
      const arrays: Record<string, string> = { count: "2", sign: "2", pleb: "2" };
      for (const script of scripts) {
        const step = /\d-(\w+)\.sbatch$/.exec(script)![1];
        const header = headerArgs(readFileSync(script, "utf8"));
        expect(header).toContain(step in arrays ? `--output=${logs}/%x-%A_%a.log` : `--output=${logs}/%x-%j.log`);
        expect(header).toContain("--partition=p q");
        expect(header[header.length - 1]).toBe(COMMENT);
        const cwd = tempDir();
        const argv = runStubbed(script, cwd);
        const slice = step in arrays ? ["--index", "1", "--count", arrays[step]] : [];
        expect(argv).toEqual([process.execPath, CLI, "task", step, "-w", workdir, ...slice, "--token", expect.stringMatching(/^[0-9a-f]{16}$/)]);
        expect(readdirSync(cwd).sort()).toEqual(["argv", "stub.sh"]);
      }
      expect(readdirSync(base).filter((f) => f === "CANARY")).toEqual([]);
    });
  }

  it("names vertdup by its real path when installed under a path with a space and a %", () => {
    const install = join(tempDir(), "my tools 100%");
    mkdirSync(install);
    cpSync("dist", join(install, "dist"), { recursive: true });
    symlinkSync(resolve("node_modules"), join(install, "node_modules"));
    writeFileSync(join(install, "package.json"), JSON.stringify({ type: "module" }));
    const cli = join(install, "dist", "src", "cli.js");
    const workdir = join(tempDir(), "w");
    const r = spawnSync(process.execPath, [cli, "slurm", "run", resolve(CORPUS), "-w", workdir, "-o", join(workdir, "..", "out"), "--dry-run"], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(runStubbed(join(workdir, "slurm", "5-merge.sbatch"), tempDir())).toEqual([process.execPath, join(install, "dist", "bundle", "cli.js"), "task", "merge", "-w", workdir, "--token", expect.stringMatching(/^[0-9a-f]{16}$/)]);
  });

  const hostile: [string[], RegExp][] = [
    [["-w", "WORK\ntouch CANARY"], /^vertdup: error: -w\/--workdir: control character \\x0a/],
    [["--sbatch-arg=--qos=x\ntouch CANARY"], /^vertdup: error: --sbatch-arg: control character \\x0a/],
    [["--partition", "p\ntouch CANARY"], /^vertdup: error: --partition: control character \\x0a/],
    [["--time", "1:00\ntouch CANARY"], /^vertdup: error: --time: control character \\x0a/],
    [["--mem", "8G\rtouch CANARY"], /^vertdup: error: --mem: control character \\x0d/],
  ];
  for (const [args, message] of hostile) {
    it(`refuses a control character in ${args[0].split("=")[0]} before any work`, () => {
      const base = tempDir();
      const work = join(base, "w");
      const withWork = args[0] === "-w" ? [args[0], join(base, args[1])] : ["-w", work, ...args];
      const r = vertdup(["slurm", "run", CORPUS, ...withWork, "-o", join(base, "out"), "--dry-run"]);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.status).toBe(1);
      expect(readdirSync(base)).toEqual([]);
    });
  }
});

/** The jobs Slurm runs for a job's settings. */
function jobsOf(settings: JobSettings) {
  return pipelineJobs(pipelineOf("/shared/w", settings));
}

/** An lsh-cosine run of `tasks` reading tasks and `iterations` PLEB iterations in groups of 10. */
function lshSettings(tasks: number, iterations: number): LshCosineSettings {
  const pleb = { threshold: 0.9, beam: 50, shiftCount: 70, iterations, seed: 1, pairs: "edges" as const };
  return { method: "lsh-cosine", inputs: ["/shared/c.vert"], prepare: DEFAULT_PREPARE, pleb, keep: "longest", pairsLimit: 0, report: true, resume: true, against: [], againstScan: "new", update: false, saveIndex: false, outdir: "/shared/o", tasks, exec: { iterationsPerGroup: 10 } };
}

function lshAgainstSettings(update: boolean, outdir: string): LshCosineSettings {
  return { ...lshSettings(8, 20), keep: "older", resume: false, against: ["/shared/index"], inputs: ["/shared/batch.vert"], update, outdir };
}

const FEATURES = { column: 0, idAttr: "id", normalize: "nfc" as const, lowercase: true, keepNumbers: false, shingleSize: 5, numPerm: 128, bands: 16, rows: 8, seed: 1, shortTokens: 9 };

function setRun(method: SetMethod): MethodRun {
  return { method, features: FEATURES, search: { threshold: 0.8, maxDistance: 5, memory: 1 << 30 }, keep: "longest" };
}
