import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

afterAll(removeTempDirs);

// Two inputs: clean has a task per input, so a kill can fall between them.
const INPUTS = ["data-samples/sample.vert.gz", "data-samples/kjv-3000.vert.gz"];
const QUIET = ["--quiet", "--no-report"];

const markers = (work: string, prefix: string) => readdirSync(join(work, "markers")).filter((n) => n.startsWith(prefix) && n.endsWith(".done")).sort();

/** `vertdup args…` killed (SIGKILL) at the kill point `point`. */
function killedAt(point: string, args: string[]): void {
  const killed = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, VERTDUP_FAULT: `kill:${point}` } });
  expect(killed.signal, killed.stderr.toString()).toBe("SIGKILL");
}

function ok(args: string[]): void {
  const r = vertdup(args);
  expect(r.status, r.stderr).toBe(0);
}

let root: string;
/** A finished run over both inputs (its work directory kept, for the references). */
let run: string;
let work: string;

beforeAll(() => {
  root = tempDir();
  run = join(root, "run");
  work = join(root, "run-work");
  ok(["run", ...INPUTS, "-o", run, "-w", work, ...QUIET]);
}, 120_000);

describe("clean -w --resume", () => {
  it.each(["clean-000000", "clean-000001"])("a clean killed after the marker %s resumes to the same bytes, keeping the finished parts", (marker) => {
    const whole = join(root, `whole-${marker}.vert.zst`);
    ok(["clean", ...INPUTS, "--from", run, "-o", whole, "--mark"]);
    const cw = join(root, `cw-${marker}`);
    const out = join(root, `out-${marker}.vert.zst`);
    const args = ["clean", ...INPUTS, "--from", run, "-o", out, "--mark", "-w", cw];
    killedAt(`marker:${marker}`, args);
    expect(existsSync(out)).toBe(false);
    expect(markers(cw, "clean-")).toContain(`${marker}.done`);
    const kept = statSync(join(cw, "clean", "000000.vert.zst")).mtimeMs;
    // Killed again once the output is in place: the first input's part was not made again.
    killedAt("marker:clean-output", [...args, "--resume"]);
    expect(statSync(join(cw, "clean", "000000.vert.zst")).mtimeMs).toBe(kept);
    expect(readFileSync(out).equals(readFileSync(whole))).toBe(true);
    ok([...args, "--resume"]);
    expect(readFileSync(out).equals(readFileSync(whole))).toBe(true);
    // The parts are removed once the output is in place.
    expect(markers(cw, "clean-")).toEqual([]);
    expect(existsSync(join(cw, "clean"))).toBe(false);
  }, 60_000);

  it("refuses --resume where it cannot continue, and a resume with other options", () => {
    const out = join(root, "refused.vert");
    const noWorkdir = vertdup(["clean", ...INPUTS, "--from", run, "-o", out, "--resume"]);
    expect(noWorkdir.status).toBe(1);
    expect(noWorkdir.stderr).toMatch(/--resume needs the work directory of the interrupted clean \(-w\)/);
    const stdout = vertdup(["clean", ...INPUTS, "--from", run, "-o", "-", "-w", join(root, "cw-stdout")]);
    expect(stdout.status).toBe(1);
    expect(stdout.stderr).toMatch(/standard output cannot be taken back: give -o a file/);
    const cw = join(root, "cw-other");
    killedAt("marker:clean-000000", ["clean", ...INPUTS, "--from", run, "-o", out, "-w", cw]);
    const other = vertdup(["clean", ...INPUTS, "--from", run, "-o", out, "-w", cw, "--mark", "--resume"]);
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(/refusing to resume clean: it was started with other --mark \(false there, true now\)/);
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});

describe.each([
  ["similarity", "0.5"],
  ["hamming-full", "0.8"],
])("%s --resume", (command, threshold) => {
  it("a run killed after a block's marker resumes with another worker count to the same pairs, keeping the finished blocks and their plan", () => {
    const whole = join(root, `${command}-whole.tsv`);
    ok([command, "-w", work, "-o", whole, "--threshold", threshold, "--workers", "1", "--quiet"]);
    const out = join(root, `${command}.tsv`);
    const args = [command, "-w", work, "-o", out, "--threshold", threshold, "--quiet"];
    killedAt(`marker:${command}-000001`, [...args, "--workers", "2"]);
    expect(existsSync(out)).toBe(false);
    const refused = vertdup([command, "-w", work, "-o", out, "--threshold", "0.95", "--resume", "--quiet"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`refusing to resume ${command}: it was started with other --threshold \\(${threshold} there, 0.95 now\\)`));
    const planned = (JSON.parse(readFileSync(join(work, command, "config.json"), "utf8")) as { blocks: number }).blocks;
    // Killed again after a block the first run had not finished: the finished ones were loaded, not computed again.
    const block = (k: number) => `${command}-${String(k).padStart(6, "0")}`;
    const done = markers(work, `${command}-`);
    // Block markers are written in batches: the kill may come after every block's marker. A
    // crash just before the last block's marker leaves that block to do again.
    if (done.length === planned) rmSync(join(work, "markers", `${block(planned - 1)}.done`));
    const next = Array.from({ length: planned }, (_, k) => k).find((k) => !markers(work, `${command}-`).includes(`${block(k)}.done`));
    expect(next).toBeDefined();
    const kept = statSync(join(work, command, "000001.zst")).mtimeMs;
    killedAt(`marker:${block(next!)}`, [...args, "--workers", "1", "--resume"]);
    expect(statSync(join(work, command, "000001.zst")).mtimeMs).toBe(kept);
    const resumed = vertdup([command, "-w", work, "-o", out, "--threshold", threshold, "--workers", "1", "--resume"]);
    expect(resumed.status, resumed.stderr).toBe(0);
    // One worker would plan half as many blocks: the two workers' plan was kept.
    expect(resumed.stderr).toContain(`${command}: ${planned}/${planned} blocks`);
    expect(readFileSync(out, "utf8")).toBe(readFileSync(whole, "utf8"));
    // The blocks are removed once the pairs file is in place.
    expect(markers(work, `${command}-`)).toEqual([]);
    expect(existsSync(join(work, command))).toBe(false);
  }, 60_000);
});
