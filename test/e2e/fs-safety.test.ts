import { spawn, spawnSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";
import { mountTmpfs, tmpfsUnavailable, type Tmpfs } from "../helpers/tmpfs.js";

afterAll(removeTempDirs);

const CORPUS = "data-samples/sample.vert.gz";
const FAST = ["--iterations", "5", "--workers", "2", "--quiet"];
const NO_STACK = /\n\s+at /;

/** The sample corpus as a plain .vert file in `dir`. */
function plainCorpus(dir: string, name = "in.vert"): string {
  const path = join(dir, name);
  writeFileSync(path, gunzipSync(readFileSync(CORPUS)));
  return path;
}

function started(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const ended = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on("exit", (code) => resolve({ code, stderr })));
  return { child, ended };
}

async function waitFor(condition: () => boolean, seconds = 30): Promise<void> {
  const until = Date.now() + seconds * 1000;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`still waiting after ${seconds} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("one run at a time in a work directory (#12.1)", () => {
  it("a second run is refused naming the holder; the first finishes with the right result", async () => {
    const work = join(tempDir(), "w");
    const reference = join(tempDir(), "ref");
    expect(vertdup(["run", CORPUS, "-o", reference, ...FAST]).status).toBe(0);
    const a = join(tempDir(), "a");
    const first = started(["run", CORPUS, "-w", work, "-o", a, ...FAST]);
    await waitFor(() => existsSync(join(work, "vertdup.lock")));
    // Paused while the others try, however fast it would finish.
    first.child.kill("SIGSTOP");
    const second = vertdup(["run", CORPUS, "-w", work, "-o", join(tempDir(), "b"), "--seed", "2", ...FAST]);
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`/w: in use by another vertdup run \\(pid ${first.child.pid}@${hostname()} since \\d{4}-`));
    expect(vertdup(["prepare", CORPUS, "-w", work, "--quiet"]).status).toBe(1);
    expect(vertdup(["pleb", "-w", work, "-o", join(tempDir(), "c"), "--quiet"]).status).toBe(1);
    first.child.kill("SIGCONT");
    expect((await first.ended).code).toBe(0);
    expect(readFileSync(join(a, "pairs.tsv"), "utf8")).toBe(readFileSync(join(reference, "pairs.tsv"), "utf8"));
    expect(existsSync(join(work, "vertdup.lock"))).toBe(false);
  }, 60_000);

  it("a dead run's lock on this host is taken over with a notice", () => {
    const work = join(tempDir(), "w");
    expect(vertdup(["prepare", CORPUS, "-w", work, "--quiet"]).status).toBe(0);
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    writeFileSync(join(work, "vertdup.lock"), JSON.stringify({ pid: Number(dead.stdout), host: hostname(), since: "2026-01-01T00:00:00.000Z", token: "old", slurm: false }));
    const r = vertdup(["pleb", "-w", work, "-o", join(tempDir(), "o"), ...FAST]);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`taking over the lock of a run that is gone \\(pid ${dead.stdout}@`));
    expect(existsSync(join(work, "vertdup.lock"))).toBe(false);
  }, 30_000);

  it("a lock from another host is reported with the way to break it", () => {
    const work = join(tempDir(), "w");
    mkdirSync(work);
    writeFileSync(join(work, ".vertdup-workdir"), "");
    writeFileSync(join(work, "vertdup.lock"), JSON.stringify({ pid: 1, host: "elsewhere", since: "2026-01-01T00:00:00.000Z", token: "x", slurm: false }));
    const r = vertdup(["run", CORPUS, "-w", work, "-o", join(tempDir(), "o"), ...FAST]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/in use by a vertdup run on another host \(pid 1@elsewhere since 2026-01-01T00:00:00.000Z\); if that run is no longer running, remove .*\/w\/vertdup\.lock/);
  });

  it("a Slurm submission keeps the lock for its tasks: they are admitted, a local run and foreign tasks are not", () => {
    const work = join(tempDir(), "w");
    const sub = vertdup(["slurm", "run", CORPUS, "-w", work, "-o", join(tempDir(), "o"), "--tasks", "2", "--dry-run"]);
    expect(sub.status).toBe(0);
    const { token } = JSON.parse(readFileSync(join(work, "vertdup.lock"), "utf8")) as { token: string };
    expect(readFileSync(join(work, "slurm", "2-count.sbatch"), "utf8")).toContain(`'--token' '${token}'`);
    const local = vertdup(["run", CORPUS, "-w", work, "-o", join(tempDir(), "o2"), ...FAST]);
    expect(local.status).toBe(1);
    expect(local.stderr).toMatch(/in use by the Slurm run submitted by pid \d+@/);
    const foreign = vertdup(["task", "count", "-w", work, "--index", "0", "--count", "2", "--token", "other"]);
    expect(foreign.status).toBe(1);
    expect(foreign.stderr).toMatch(/this task's run \(token other\) no longer holds the work directory/);
    for (const index of ["0", "1"]) expect(vertdup(["task", "count", "-w", work, "--index", index, "--count", "2", "--token", token]).status).toBe(0);
  }, 30_000);
});

describe("outputs never overwrite an input (#12.2)", () => {
  it("paragraphs -o the input itself, ./input, through a symlinked directory, a hard link; .gz too", () => {
    const dir = tempDir();
    const input = plainCorpus(dir);
    const before = readFileSync(input);
    symlinkSync(dir, join(dir, "link"));
    linkSync(input, join(dir, "hard.vert"));
    for (const output of [input, join(dir, ".", "in.vert"), join(dir, "link", "in.vert"), join(dir, "hard.vert")]) {
      const r = vertdup(["paragraphs", input, "-o", output, "--quiet"]);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`${output}: would overwrite input ${input}`);
    }
    const gz = join(dir, "c.vert.gz");
    writeFileSync(gz, readFileSync(CORPUS));
    expect(vertdup(["paragraphs", gz, "-o", gz, "--quiet"]).stderr).toContain(`${gz}: would overwrite input ${gz}`);
    expect(readFileSync(input).equals(before)).toBe(true);
    expect(readFileSync(gz).equals(readFileSync(CORPUS))).toBe(true);
  });

  it("clean -o through a symlinked directory", () => {
    const dir = tempDir();
    const input = plainCorpus(dir);
    const out = join(tempDir(), "out");
    expect(vertdup(["run", input, "-o", out, ...FAST]).status).toBe(0);
    symlinkSync(dir, join(dir, "link"));
    const r = vertdup(["clean", input, "--from", out, "-o", join(dir, "link", "in.vert")]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/link\/in\.vert: would overwrite input/);
    expect(readFileSync(input).equals(gunzipSync(readFileSync(CORPUS)))).toBe(true);
  }, 30_000);
});

describe("-w on an existing directory (#12.3)", () => {
  it("a directory with the user's files is refused and left alone", () => {
    const mine = join(tempDir(), "mydir");
    mkdirSync(join(mine, "store"), { recursive: true });
    writeFileSync(join(mine, "store", "mine.txt"), "x");
    const r = vertdup(["run", CORPUS, "-w", mine, "-o", join(tempDir(), "o"), ...FAST]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/mydir: not empty and not a work directory made by vertdup \(no \.vertdup-workdir\): refusing to clear it/);
    expect(readdirSync(mine)).toEqual(["store"]);
    expect(readFileSync(join(mine, "store", "mine.txt"), "utf8")).toBe("x");
  });

  it("-w . in a directory of the user's", () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "notes.txt"), "mine");
    const r = spawnSync(process.execPath, [CLI, "run", join(process.cwd(), CORPUS), "-w", ".", "-o", "o", ...FAST], { cwd, encoding: "utf8" });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/\.: not empty and not a work directory made by vertdup/);
    expect(readdirSync(cwd)).toEqual(["notes.txt"]);
  });

  it("a directory holding only the stamp's temporary file (a run killed while stamping it) is adopted, on --resume too", () => {
    const work = tempDir();
    writeFileSync(join(work, ".vertdup-workdir.tmp-12345-0a1b2c3d"), "a vertdup");
    const r = vertdup(["run", CORPUS, "-w", work, "-o", join(tempDir(), "o"), "--resume", ...FAST]);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.status).toBe(0);
    expect(readdirSync(work).filter((name) => name.startsWith(".vertdup-workdir"))).toEqual([".vertdup-workdir"]);
  });

  it("an empty directory is adopted, and vertdup's own directory reused", () => {
    const work = tempDir();
    expect(vertdup(["run", CORPUS, "-w", work, "-o", join(tempDir(), "o"), ...FAST]).status).toBe(0);
    expect(existsSync(join(work, ".vertdup-workdir"))).toBe(true);
    expect(vertdup(["run", CORPUS, "-w", work, "-o", join(tempDir(), "o"), ...FAST]).status).toBe(0);
  }, 30_000);
});

/** The output directory of a run on the sample corpus, made once. */
let sampleRun: string | undefined;
function runOutput(): string {
  if (sampleRun === undefined) {
    sampleRun = join(tempDir(), "run");
    expect(vertdup(["run", CORPUS, "-o", sampleRun, ...FAST]).status).toBe(0);
  }
  return sampleRun;
}

describe("clear errors for unusable paths and full disks (#12.13)", () => {
  const blocker = join(tempDir(), "a-file");
  writeFileSync(blocker, "not a directory");
  const cases: [string, () => string[], RegExp][] = [
    ["-w that is a file", () => ["run", CORPUS, "-w", blocker, "-o", join(tempDir(), "o"), "--quiet"], /a-file: not a directory \(the work directory must be one\)/],
    ["-w under a file", () => ["run", CORPUS, "-w", join(blocker, "w"), "-o", join(tempDir(), "o"), "--quiet"], /a-file\/w: cannot use as work directory \(a component of the path is not a directory \(ENOTDIR\)\)/],
    ["--tmp-dir that is a file", () => ["run", CORPUS, "--tmp-dir", blocker, "-o", join(tempDir(), "o"), "--quiet"], /a-file: cannot create a temporary directory in it \(a component of the path is not a directory/],
    ["clean into a directory under a file", () => ["clean", CORPUS, "--from", runOutput(), "-o", join(blocker, "out.vert")], /a-file\/out\.vert: cannot write/],
  ];
  for (const [what, args, message] of cases) {
    it(what, () => {
      const r = vertdup(args());
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(NO_STACK);
    });
  }

  const noTmpfs = tmpfsUnavailable();
  if (noTmpfs !== null) console.warn(`full and read-only device tests skipped: ${noTmpfs}`);
  let full: Tmpfs | undefined;
  let readOnly: Tmpfs | undefined;
  beforeAll(() => {
    if (noTmpfs !== null) return;
    full = mountTmpfs("size=256k");
    readOnly = mountTmpfs("ro,size=64k");
  });
  afterAll(() => {
    full?.unmount();
    readOnly?.unmount();
  });

  for (const method of ["lsh-cosine", "minhash"]) {
    it.skipIf(noTmpfs !== null)(`--method ${method} with its work directory on a full device: path: no space left, exit 1, no temporary left`, () => {
      const work = join((full as Tmpfs).dir, method);
      const r = vertdup(["run", "data-samples/kjv-3000.vert.gz", "--method", method, "-w", work, "-o", join(tempDir(), "o"), ...(method === "minhash" ? ["--workers", "1", "--quiet"] : FAST)]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/: cannot write \(no space left on the device \(ENOSPC\)\)/);
      expect(r.stderr).not.toMatch(NO_STACK);
      expect(readdirSync(work, { recursive: true }).filter((f) => String(f).includes(".tmp-"))).toEqual([]);
    }, 60_000);
  }

  const readOnlyCases: [string, (dir: string) => string[], RegExp][] = [
    ["-w", (dir) => ["run", CORPUS, "-w", join(dir, "w"), "-o", join(tempDir(), "o"), "--quiet"], /\/w: cannot create the work directory \(read-only file system \(EROFS\)\)/],
    ["run -o", (dir) => ["run", CORPUS, "-o", join(dir, "a", "out"), "--quiet"], /a\/out: cannot write to this directory \(read-only file system \(EROFS\)\)/],
    ["--tmp-dir", (dir) => ["run", CORPUS, "--tmp-dir", dir, "-o", join(tempDir(), "o"), "--quiet"], /: cannot create a temporary directory in it \(read-only file system \(EROFS\)\)/],
    ["clean -o", (dir) => ["clean", CORPUS, "--from", runOutput(), "-o", join(dir, "c.vert.gz")], /c\.vert\.gz: cannot write \(read-only file system \(EROFS\)\)/],
  ];
  for (const [what, args, message] of readOnlyCases) {
    it.skipIf(noTmpfs !== null)(`${what} on a read-only file system`, () => {
      const r = vertdup(args((readOnly as Tmpfs).dir));
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(NO_STACK);
    });
  }

  it.skipIf(noTmpfs !== null)("clean onto a full device: no large .tmp keeps the disk full", () => {
    const dir = (full as Tmpfs).dir;
    const r = vertdup(["clean", CORPUS, "--from", runOutput(), "-o", join(dir, "clean.vert")]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/clean\.vert: cannot write \(no space left on the device \(ENOSPC\)\)/);
    expect(r.stderr).not.toMatch(NO_STACK);
    expect(readdirSync(dir).filter((f) => f.startsWith("clean.vert"))).toEqual([]);
  }, 30_000);
});

describe("SIGINT and SIGTERM (#12.14)", () => {
  it("without -w: the temporary work directory goes, exit 130", async () => {
    const tmp = tempDir();
    const run = started(["run", CORPUS, "--tmp-dir", tmp, "-o", join(tempDir(), "o"), ...FAST]);
    await waitFor(() => readdirSync(tmp).some((d) => existsSync(join(tmp, d, "config.json"))));
    run.child.kill("SIGINT");
    const { code, stderr } = await run.ended;
    expect(code).toBe(130);
    expect(stderr).toMatch(/interrupted \(SIGINT\)/);
    expect(readdirSync(tmp)).toEqual([]);
  }, 30_000);

  it("paragraphs: its scratch directory and the unfinished output go", async () => {
    const tmp = tempDir();
    const outDir = tempDir();
    const run = started(["paragraphs", CORPUS, "--tmp-dir", tmp, "-o", join(outDir, "out.vert.gz"), "--quiet"]);
    await waitFor(() => readdirSync(tmp).length > 0 && readdirSync(outDir).length > 0);
    run.child.kill("SIGTERM");
    expect((await run.ended).code).toBe(143);
    expect(readdirSync(tmp)).toEqual([]);
    expect(readdirSync(outDir)).toEqual([]);
  }, 30_000);

  it("with -w: the work directory is kept, its lock released, and the resume command printed; exit 143", async () => {
    const work = join(tempDir(), "w");
    const run = started(["run", CORPUS, "-w", work, "-o", join(tempDir(), "o"), ...FAST]);
    await waitFor(() => existsSync(join(work, "config.json")));
    run.child.kill("SIGTERM");
    const { code, stderr } = await run.ended;
    expect(code).toBe(143);
    expect(stderr).toContain(`the work directory ${work} is kept: continue with --resume -w ${work}`);
    expect(existsSync(join(work, "config.json"))).toBe(true);
    expect(existsSync(join(work, "vertdup.lock"))).toBe(false);
    expect(vertdup(["run", CORPUS, "-w", work, "-o", join(tempDir(), "o"), "--resume", ...FAST]).status).toBe(0);
  }, 30_000);

  it("an interrupted method run says how to continue: --resume", async () => {
    const work = join(tempDir(), "w");
    const run = started(["run", CORPUS, "--method", "minhash", "-w", work, "-o", join(tempDir(), "o"), "--workers", "2", "--quiet"]);
    await waitFor(() => existsSync(join(work, "methods")));
    run.child.kill("SIGTERM");
    const { code, stderr } = await run.ended;
    expect(code).toBe(143);
    expect(stderr).toContain(`the work directory ${work} is kept: continue with --resume -w ${work}`);
  }, 30_000);
});
