import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";
import { mountTmpfs, tmpfsUnavailable, type Tmpfs } from "../helpers/tmpfs.js";
import { asTask } from "../../src/executor/task-result.js";
import { DEFAULT_GENERATOR, generateCorpus } from "../../scripts/generate-corpus.js";

afterAll(removeTempDirs);

const CORPUS = "data-samples/sample.vert.gz";
const NO_STACK = /\n\s+at /;

describe("#31 item 4: one run at a time into an -o, and a reader refuses a mixed set", () => {
  it("a second run into the same -o is refused while the first runs; the first finishes", async () => {
    const out = join(tempDir(), "o");
    const prepared = join(tempDir(), "w");
    expect(vertdup(["prepare", CORPUS, "-w", prepared, "--quiet"]).status).toBe(0);
    // Enough PLEB iterations to hold -o while the two others try it (the sample alone runs in 0.6 s).
    const first = spawn(process.execPath, [CLI, "run", CORPUS, "-o", out, "--quiet", "--iterations", "2000"], { stdio: "ignore" });
    const ended = new Promise<number | null>((done) => first.on("exit", done));
    while (!existsSync(join(out, "vertdup.lock"))) await new Promise((r) => setTimeout(r, 10));
    // Another work directory: only -o is shared.
    const second = vertdup(["run", CORPUS, "-o", out, "--method", "minhash", "--quiet"]);
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(/o: in use by another vertdup run \(pid \d+@.*\): wait for it to end or give another output directory \(-o\)/);
    // pleb writes the same set of outputs.
    const pleb = vertdup(["pleb", "-w", prepared, "-o", out, "--quiet"]);
    expect(pleb.status).toBe(1);
    expect(pleb.stderr).toMatch(/o: in use by another vertdup run/);
    expect(await ended).toBe(0);
    expect(JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")).method).toBe("lsh-cosine");
    expect(existsSync(join(out, "vertdup.lock"))).toBe(false);
  }, 30_000);

  it("clean --from refuses a clusters.tsv the manifest does not name (a later run stopped halfway)", () => {
    const a = join(tempDir(), "a");
    const b = join(tempDir(), "b");
    expect(vertdup(["run", CORPUS, "-o", a, "--method", "exact", "--quiet"]).status).toBe(0);
    expect(vertdup(["run", CORPUS, "-o", b, "--method", "minhash", "--quiet"]).status).toBe(0);
    const manifest = JSON.parse(readFileSync(join(a, "manifest.json"), "utf8")) as { files: Record<string, { bytes: number }> };
    expect(Object.keys(manifest.files).sort()).toEqual(["clusters.tsv", "groups.tsv", "pairs.tsv"]);
    const cleaned = join(tempDir(), "c.vert");
    expect(vertdup(["clean", CORPUS, "--from", a, "-o", cleaned]).status).toBe(0);
    // What run b leaves in a if it is stopped after its clusters.tsv, before its manifest.
    copyFileSync(join(b, "clusters.tsv"), join(a, "clusters.tsv"));
    const mixed = join(tempDir(), "m.vert");
    const r = vertdup(["clean", CORPUS, "--from", a, "-o", mixed]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/a\/clusters\.tsv: not the file .*a\/manifest\.json names \(\d+ bytes, sha256 [0-9a-f]{12}…; it has \d+ bytes/);
    expect(r.stderr).not.toMatch(NO_STACK);
    expect(existsSync(mixed)).toBe(false);
  }, 30_000);
});

describe("#31 item 6: SIGINT stops the worker threads before the temporary directory goes", () => {
  it("no file left by a worker writing as the signal comes (5 tries; scripts/quality/interrupt-leftovers.ts runs 50)", () => {
    const tmp = tempDir();
    for (let t = 0; t < 5; t++) {
      const r = spawnSync(process.execPath, [resolve("dist/test/fixtures/interrupted-pool.js"), tmp], { encoding: "utf8" });
      expect(r.status).toBe(130);
      expect(r.stderr).toMatch(/interrupted \(SIGINT\)/);
      expect(readdirSync(tmp, { recursive: true })).toEqual([]);
    }
  }, 30_000);
});

describe("#31 item 8: a full disk in any phase is `path: cannot write (…)`, exit 1", () => {
  it("an ENOSPC raised in a worker thread crosses to the main thread as a user error naming the path", async () => {
    const full = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", path: "w/shards/000001.counts.zst" });
    const task = asTask(() => Promise.reject(full));
    expect(await task(undefined)).toEqual({ ok: false, message: "w/shards/000001.counts.zst: cannot write (no space left on the device (ENOSPC))" });
  });

  const noTmpfs = tmpfsUnavailable();
  if (noTmpfs !== null) console.warn(`full device tests skipped: ${noTmpfs}`);
  let full: Tmpfs | undefined;
  let from = "";
  beforeAll(() => {
    if (noTmpfs !== null) return;
    full = mountTmpfs("size=64k");
    from = join(tempDir(), "o");
    expect(vertdup(["run", CORPUS, "-o", from, "--quiet"]).status).toBe(0);
  }, 30_000);
  afterAll(() => full?.unmount());

  const cases: [string, (dir: string) => string[], RegExp][] = [
    ["paragraphs -w", (dir) => ["paragraphs", CORPUS, "-w", join(dir, "pw"), "-o", join(tempDir(), "p.vert"), "--quiet"], /pw\/paragraph-steps\/000000\.ngrams: cannot write \(no space left on the device \(ENOSPC\)\)/],
    ["clean -w", (dir) => ["clean", CORPUS, "--from", from, "-w", join(dir, "cw"), "-o", join(tempDir(), "c.vert")], /cw\/clean\/000000\.vert\.zst: cannot write \(no space left on the device \(ENOSPC\)\)/],
  ];
  for (const [what, args, message] of cases) {
    it.skipIf(noTmpfs !== null)(`${what} on a full device`, () => {
      const dir = (full as Tmpfs).dir;
      const r = vertdup(args(dir));
      expect(r.stderr).toMatch(message);
      expect(r.status).toBe(1);
      expect(r.stderr).not.toMatch(NO_STACK);
      expect(readdirSync(dir, { recursive: true }).filter((f) => String(f).includes(".tmp-"))).toEqual([]);
    }, 30_000);
  }

  it.skipIf(noTmpfs !== null)("paragraphs spilling its n-grams to a full device names the file it could not write", async () => {
    // More text than --memory holds (16 MiB), on a device with room for less: the spill fails, through an open descriptor.
    const corpus = join(tempDir(), "spill.vert");
    await generateCorpus(corpus, join(tempDir(), "spill.truth.tsv"), { ...DEFAULT_GENERATOR, docs: 8000, vocab: 20_000 });
    const small = mountTmpfs("size=4m");
    try {
      const r = vertdup(["paragraphs", corpus, "--tmp-dir", small.dir, "--memory", "16M", "-o", join(tempDir(), "spill-out.vert"), "--quiet"]);
      expect(r.stderr).toMatch(/vertdup-[^/]+\/paragraphs\/(chunks\.spool|bucket-\d+\.run): cannot write \(no space left on the device \(ENOSPC\)\)/);
      expect(r.status).toBe(1);
      expect(r.stderr).not.toMatch(NO_STACK);
      expect(existsSync(join(tempDir(), "spill-out.vert"))).toBe(false);
    } finally {
      small.unmount();
    }
  }, 60_000);
});
