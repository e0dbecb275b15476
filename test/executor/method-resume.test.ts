import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";
import { readRunFileSync, writeRunFile } from "../../src/util/run-file.js";
import { indexContent } from "../../src/workdir/index-store.js";

afterAll(removeTempDirs);

const CORPUS = "data-samples/sample.vert.gz";
// Several chunks, so that a kill after the second chunk's marker lands in the middle of the features step.
const ARGS = ["--chunk-size", "20000", "--workers", "2", "--quiet", "--no-report"];

const outputsOf = (outdir: string) => ["pairs.tsv", "clusters.tsv", "groups.tsv"].map((f) => readFileSync(join(outdir, f), "utf8"));

const markers = (work: string, prefix: string) => readdirSync(join(work, "markers")).filter((n) => n.startsWith(prefix) && n.endsWith(".done")).sort();

describe.each(["minhash", "simhash384", "exact", "paragraphs"])("run --method %s --resume", (method) => {
  it("continues after a kill in the middle of the feature shards: finished chunks are kept, outputs byte-identical", () => {
    const root = tempDir();
    const whole = vertdup(["run", CORPUS, "-o", join(root, "whole"), "--method", method, ...ARGS]);
    expect(whole.status).toBe(0);
    const work = join(root, "w");
    const out = join(root, "out");
    const killed = spawnSync(process.execPath, [CLI, "run", CORPUS, "-o", out, "-w", work, "--method", method, ...ARGS], { env: { ...process.env, VERTDUP_FAULT: "kill:marker:features-000001" } });
    expect(killed.signal).toBe("SIGKILL");
    expect(markers(work, "features-")).toContain("features-000001.done");
    // Markers are written as tasks end, so a loaded machine may finish every other chunk while
    // chunk 1's marker is being synced: take the work directory back to the state of a kill
    // just after chunk 1 (each task's marker is independent of the others').
    for (const later of markers(work, "features-").filter((n) => n > "features-000001.done")) rmSync(join(work, "markers", later));
    const done = markers(work, "features-");
    const kept = statSync(join(work, "methods", "000001.shard.zst")).mtimeMs;
    const resumed = vertdup(["run", CORPUS, "-o", out, "-w", work, "--method", method, "--resume", ...ARGS]);
    expect(resumed.status, resumed.stderr).toBe(0);
    // The finished chunk was read back, not computed again; the others were done now.
    expect(statSync(join(work, "methods", "000001.shard.zst")).mtimeMs).toBe(kept);
    expect(markers(work, "features-").length).toBeGreaterThan(done.length);
    expect(outputsOf(out)).toEqual(outputsOf(join(root, "whole")));
  }, 60_000);
});

describe("run --method minhash --resume: the sets files", () => {
  /** Kills a minhash run after the second chunk's marker; the work directory and the uninterrupted run's outputs. */
  function killedRun(root: string): { work: string; whole: string } {
    const whole = join(root, "whole");
    expect(vertdup(["run", CORPUS, "-o", whole, "--method", "minhash", ...ARGS]).status).toBe(0);
    const work = join(root, "w");
    const killed = spawnSync(process.execPath, [CLI, "run", CORPUS, "-o", join(root, "out"), "-w", work, "--method", "minhash", ...ARGS], { env: { ...process.env, VERTDUP_FAULT: "kill:marker:features-000001" } });
    expect(killed.signal).toBe("SIGKILL");
    return { work, whole };
  }

  /** Moves the killed run's work directory, resumes it there, and expects the uninterrupted run's outputs. */
  function resumeMoved(root: string, work: string, whole: string): void {
    const moved = join(root, "moved");
    renameSync(work, moved);
    const out = join(root, "out2");
    const resumed = vertdup(["run", CORPUS, "-o", out, "-w", moved, "--method", "minhash", "--resume", ...ARGS]);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(outputsOf(out)).toEqual(outputsOf(whole));
  }

  it("a work directory moved after a kill resumes: shard files name their sets file (beside them) by name only", () => {
    const root = tempDir();
    const { work, whole } = killedRun(root);
    expect(readRunFileSync<{ sets: string }>(join(work, "methods", "000001.shard.zst"))[0].sets).toBe("000001.sets");
    resumeMoved(root, work, whole);
  }, 60_000);

  it("a shard file of an older version, with the sets file's full path, still resumes, also moved", async () => {
    const root = tempDir();
    const { work, whole } = killedRun(root);
    const file = join(work, "methods", "000001.shard.zst");
    const [shard] = readRunFileSync<{ sets: string }>(file);
    await writeRunFile(file, [{ ...shard, sets: join(work, "methods", shard.sets) }]);
    resumeMoved(root, work, whole);
  }, 60_000);
});

/** Every file under `dirs` with its inode and modification time: what a rewrite changes. */
function files(...dirs: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const dir of dirs) {
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      const s = statSync(path, { bigint: true });
      out.set(path, `${s.ino} ${s.mtimeNs}`);
    }
  }
  return out;
}

describe.each([
  ["minhash", ["--estimate-recall", "--sample", "100"]],
  ["simhash384", []],
  ["exact", []],
  ["paragraphs", ["--estimate-recall", "--sample", "100"]],
])("run --method %s --resume of a finished run", (method, extra) => {
  it("rewrites no file of the work directory nor of the outputs; into another -o, only the outputs", () => {
    const root = tempDir();
    const work = join(root, "w");
    const out = join(root, "out");
    const args = ["run", CORPUS, "--method", method, ...extra, "-w", work, ...ARGS.filter((a) => a !== "--no-report")];
    expect(vertdup([...args, "-o", out]).status).toBe(0);
    // The work directory is left as an index, with every step's files.
    expect(readdirSync(work)).toContain("index.json");
    const before = files(work, out);
    const resumed = vertdup([...args, "-o", out, "--resume"]);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(files(work, out)).toEqual(before);
    const other = join(root, "other");
    expect(vertdup([...args, "-o", other, "--resume"]).status).toBe(0);
    const after = files(work);
    const changed = [...after].filter(([path, stamp]) => before.get(path) !== stamp).map(([path]) => path.slice(work.length + 1));
    // The steps that write into -o ran again (their markers name it); nothing they read was made again.
    expect(changed.sort()).toEqual(extra.length > 0 ? ["markers/calibrate.done", "markers/output.done"] : ["markers/output.done"]);
    for (const f of ["pairs.tsv", "groups.tsv", "clusters.tsv", ...(extra.length > 0 ? ["calibration.tsv"] : [])]) expect(readFileSync(join(other, f), "utf8"), f).toBe(readFileSync(join(out, f), "utf8"));
  }, 60_000);
});

describe("run --method minhash -w --resume after a kill in the index step", () => {
  it("makes the index the uninterrupted run makes, without running the steps before it again", async () => {
    const root = tempDir();
    process.env.SOURCE_DATE_EPOCH = "1700000000";
    try {
      const whole = join(root, "whole");
      expect(vertdup(["run", CORPUS, "-o", join(root, "o1"), "-w", whole, "--method", "minhash", ...ARGS]).status).toBe(0);
      const work = join(root, "w");
      const args = ["run", CORPUS, "-o", join(root, "o2"), "-w", work, "--method", "minhash", ...ARGS];
      const killed = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, VERTDUP_FAULT: "kill:index:before-commit" } });
      expect(killed.signal).toBe("SIGKILL");
      expect(readdirSync(work)).not.toContain("index.json");
      const graph = statSync(join(work, "methods", "graph.zst")).mtimeMs;
      expect(vertdup([...args, "--resume"]).status).toBe(0);
      expect(statSync(join(work, "methods", "graph.zst")).mtimeMs).toBe(graph);
      expect(await indexContent(work)).toEqual(await indexContent(whole));
    } finally {
      delete process.env.SOURCE_DATE_EPOCH;
    }
  }, 60_000);
});

describe("run --method --resume refusals", () => {
  it("refuses to resume with other feature options, and a run without --resume starts over", () => {
    const root = tempDir();
    const work = join(root, "w");
    const out = join(root, "out");
    expect(vertdup(["run", CORPUS, "-o", out, "-w", work, "--method", "minhash", ...ARGS]).status).toBe(0);
    const other = vertdup(["run", CORPUS, "-o", out, "-w", work, "--method", "minhash", "--resume", "--shingle-size", "3", ...ARGS]);
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(/refusing to resume: the work directory was made with other --shingleSize \(5 there, 3 now\)/);
    const method = vertdup(["run", CORPUS, "-o", out, "-w", work, "--method", "exact", "--resume", ...ARGS]);
    expect(method.stderr).toMatch(/refusing to resume: .*--method \(minhash there, exact now\)/);
    const before = statSync(join(work, "methods", "000000.shard.zst")).mtimeMs;
    expect(vertdup(["run", CORPUS, "-o", out, "-w", work, "--method", "minhash", ...ARGS]).status).toBe(0);
    expect(statSync(join(work, "methods", "000000.shard.zst")).mtimeMs).not.toBe(before);
  }, 60_000);
});

describe.each(["lsh-cosine", "minhash", "paragraphs"])("run --method %s --resume without --chunk-size", (method) => {
  it("takes the work directory's chunk size (one made with another resumes, its shards kept); another given one is refused", () => {
    const root = tempDir();
    const work = join(root, "w");
    const args = ["run", CORPUS, "--method", method, "-w", work, "--workers", "2", "--quiet", "--no-report"];
    expect(vertdup([...args, "-o", join(root, "made"), "--chunk-size", "20000"]).status).toBe(0);
    const before = files(work);
    const resumed = vertdup([...args, "-o", join(root, "made"), "--resume"]);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(files(work)).toEqual(before);
    const other = vertdup([...args, "-o", join(root, "made"), "--resume", "--chunk-size", "30000"]);
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(/refusing to resume: the work directory was made with other --chunk-size \(20000 there, 30000 now\)/);
    // Without --resume, the default chunk size; the outputs do not depend on it.
    expect(vertdup([...args, "-o", join(root, "anew")]).status).toBe(0);
    expect(JSON.parse(readFileSync(join(work, "config.json"), "utf8")).chunkBytes).toBe(4 << 20);
    expect(outputsOf(join(root, "anew"))).toEqual(outputsOf(join(root, "made")));
  }, 60_000);
});
