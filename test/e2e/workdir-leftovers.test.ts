import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { removeTempDirs, tempDir } from "../helpers/cli.js";
import { inProcess } from "../helpers/in-process.js";

// #31: a command refused for a missing input (or a directory given as one) leaves no work
// directory (-w) or output directory (-o) behind, and marks no directory that was there.

afterAll(removeTempDirs);
afterEach(() => vi.unstubAllEnvs());

/** Every command taking -w or an -o directory, its arguments with the input `input` under `dir`. */
const COMMANDS: [name: string, args: (dir: string, input: string) => string[]][] = [
  ["prepare", (d, i) => ["prepare", i, "-w", join(d, "w")]],
  ["run", (d, i) => ["run", i, "-w", join(d, "w"), "-o", join(d, "o")]],
  ["calibrate", (d, i) => ["calibrate", i, "-w", join(d, "w"), "-o", join(d, "o")]],
  ["paragraphs", (d, i) => ["paragraphs", i, "-w", join(d, "w"), "-o", join(d, "out.vert")]],
  ["short-long", (d, i) => ["short-long", i, "-o", join(d, "o")]],
  ["slurm run", (d, i) => ["slurm", "run", i, "-w", join(d, "w"), "-o", join(d, "o"), "--dry-run"]],
  ["slurm paragraphs", (d, i) => ["slurm", "paragraphs", i, "-w", join(d, "w"), "-o", join(d, "out.vert"), "--dry-run"]],
];

describe("a refused input leaves no -w or -o behind", () => {
  it.each(COMMANDS)("%s", async (_name, argsFor) => {
    // No Slurm commands: a client without a controller waits 10 s for scontrol's answer.
    vi.stubEnv("PATH", tempDir());
    const missing = tempDir();
    const r = await inProcess(argsFor(missing, join(missing, "missing.vert")));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/missing\.vert: cannot read input file \(missing or no permission\)/);
    expect(readdirSync(missing)).toEqual([]);
    // A directory given as the corpus; the work directory there already, empty: it stays so.
    const dir = tempDir();
    mkdirSync(join(dir, "corpus"));
    mkdirSync(join(dir, "w"));
    const d = await inProcess(argsFor(dir, join(dir, "corpus")));
    expect(d.status).toBe(1);
    expect(d.stderr).toMatch(/corpus: is a directory, not a corpus file/);
    expect(readdirSync(dir).sort()).toEqual(["corpus", "w"]);
    expect(readdirSync(join(dir, "w"))).toEqual([]);
  });
});
