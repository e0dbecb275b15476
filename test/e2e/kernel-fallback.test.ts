import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, removeTempDirs, tempDir } from "../helpers/cli.js";

afterAll(removeTempDirs);

const CORPUS = "data-samples/sample.vert.gz";

function run(args: string[], fault?: string) {
  const env = { ...process.env, VERTDUP_FAULT: fault ?? "" };
  const r = spawnSync(process.execPath, [CLI, ...args, "--workers", "2", "--quiet"], { encoding: "utf8", env });
  expect(r.stderr).not.toMatch(/Error:/);
  expect(r.status).toBe(0);
  return r.stderr;
}

const occurrences = (text: string, what: string) => text.split(what).length - 1;

describe("a WebAssembly kernel that fails falls back to TypeScript, says so once and changes no output", () => {
  it("run --method minhash: stderr and manifest.json (kernels)", () => {
    const dir = tempDir();
    const outputs = (out: string) => ["pairs.tsv", "clusters.tsv", "groups.tsv"].map((f) => readFileSync(join(dir, out, f), "utf8"));
    const manifest = (out: string) => JSON.parse(readFileSync(join(dir, out, "manifest.json"), "utf8"));
    // Small chunks: several worker tasks, each on the TypeScript loop.
    const args = (out: string) => ["run", CORPUS, "--method", "minhash", "-w", join(dir, `w-${out}`), "-o", join(dir, out), "--chunk-size", "40000"];
    expect(run(args("wasm"))).not.toMatch(/kernel/);
    expect(manifest("wasm").kernels).toEqual({ minhash: "webassembly" });
    const stderr = run(args("ts"), "kernel:minhash");
    expect(occurrences(stderr, "the WebAssembly kernel minhash is unavailable (fault injected (VERTDUP_FAULT))")).toBe(1);
    expect(manifest("ts").kernels).toEqual({ minhash: "typescript (fault injected (VERTDUP_FAULT))" });
    expect(manifest("ts").counts.pairs).toBeGreaterThan(0);
    expect(outputs("ts")).toEqual(outputs("wasm"));
    run([...args("perms"), "--num-perm", "120"]);
    expect(manifest("perms").kernels).toEqual({ minhash: "typescript (--num-perm is not a multiple of 16)" });
  });

  it("lsh-cosine (the sign pass's accumulate): stderr, prepare.json and manifest.json (kernels), the same signatures", () => {
    const dir = tempDir();
    const json = (path: string) => JSON.parse(readFileSync(path, "utf8"));
    const store = (work: string) => ["signatures.u32", "docs.u32", "offsets.u32"].map((f) => readFileSync(join(work, "store", f)));
    const fallback = "typescript (fault injected (VERTDUP_FAULT))";
    // Each kind of sum: int8 with fixed-point tf-idf weights (acc8d4, acc8i) through to the
    // outputs, int8 with tf (the same kernels) and float32 (acc) through prepare; small chunks:
    // several sign tasks.
    for (const options of [[], ["--weighting", "tf"], ["--projection", "float32"]]) {
      const tag = options.join("") || "default";
      const work = (kind: string) => join(dir, `w-${tag}-${kind}`);
      const out = (kind: string) => join(dir, `o-${tag}-${kind}`);
      const args = (kind: string) => [...(options.length === 0 ? ["run", CORPUS, "-o", out(kind)] : ["prepare", CORPUS]), "-w", work(kind), "--chunk-size", "40000", ...options];
      expect(run(args("wasm"))).not.toMatch(/kernel/);
      // int8 vectors are drawn by the int8-draw kernel (float32 ones by TypeScript).
      const draw = options.includes("float32") ? {} : { "int8-draw": "webassembly" };
      expect(json(join(work("wasm"), "prepare.json")).kernels).toEqual({ accumulate: "webassembly", "token-hash": "webassembly", ...draw });
      const stderr = run(args("ts"), "kernel:accumulate");
      expect(occurrences(stderr, "the WebAssembly kernel accumulate is unavailable (fault injected (VERTDUP_FAULT))")).toBe(1);
      expect(json(join(work("ts"), "prepare.json")).kernels).toEqual({ accumulate: fallback, "token-hash": "webassembly", ...draw });
      expect(store(work("ts"))).toEqual(store(work("wasm")));
      if (options.length > 0) continue;
      expect(json(join(out("wasm"), "manifest.json")).kernels).toEqual({ accumulate: "webassembly", "token-hash": "webassembly", ...draw, "beam-scan": "webassembly" });
      expect(json(join(out("ts"), "manifest.json")).kernels).toEqual({ accumulate: fallback, "token-hash": "webassembly", ...draw, "beam-scan": "webassembly" });
      const outputs = (kind: string) => ["pairs.tsv", "clusters.tsv", "groups.tsv"].map((f) => readFileSync(join(out(kind), f), "utf8"));
      expect(outputs("ts")[0].split("\n").length).toBeGreaterThan(10);
      expect(outputs("ts")).toEqual(outputs("wasm"));
    }
  });

  it("the count pass's token hash: stderr, prepare.json (kernels), the same shard files and signatures", () => {
    const dir = tempDir();
    const work = (kind: string) => join(dir, `w-${kind}`);
    const files = (kind: string) => ["shards/000000.counts.zst", "shards/000001.counts.zst", "shards/000001.df.zst", "vocab.zst", "store/signatures.u32"].map((f) => readFileSync(join(work(kind), f)));
    const args = (kind: string) => ["prepare", CORPUS, "-w", work(kind), "--chunk-size", "40000"];
    expect(run(args("wasm"))).not.toMatch(/kernel/);
    const stderr = run(args("ts"), "kernel:token-hash");
    expect(occurrences(stderr, "the WebAssembly kernel token-hash is unavailable (fault injected (VERTDUP_FAULT))")).toBe(1);
    expect(JSON.parse(readFileSync(join(work("ts"), "prepare.json"), "utf8")).kernels).toEqual({ accumulate: "webassembly", "token-hash": "typescript (fault injected (VERTDUP_FAULT))", "int8-draw": "webassembly" });
    expect(files("ts")).toEqual(files("wasm"));
  });

  it("lsh-cosine's beam scan: stderr, manifest.json (kernels), the same outputs of run and pleb, with --pairs all and edges", () => {
    const dir = tempDir();
    const work = join(dir, "w");
    const fallback = "typescript (fault injected (VERTDUP_FAULT))";
    // pleb-log.tsv without its seconds column (the last).
    const log = (out: string) => readFileSync(join(dir, out, "pleb-log.tsv"), "utf8").replace(/\t[^\t\n]*$/gm, "");
    const outputs = (out: string) => [...["pairs.tsv", "clusters.tsv", "groups.tsv"].map((f) => readFileSync(join(dir, out, f), "utf8")), log(out)];
    const kernels = (out: string) => JSON.parse(readFileSync(join(dir, out, "manifest.json"), "utf8")).kernels;
    expect(run(["run", CORPUS, "-w", work, "-o", join(dir, "run-wasm")])).not.toMatch(/kernel/);
    expect(kernels("run-wasm")["beam-scan"]).toBe("webassembly");
    const stderr = run(["run", CORPUS, "-w", join(dir, "w-ts"), "-o", join(dir, "run-ts")], "kernel:beam-scan");
    expect(occurrences(stderr, "the WebAssembly kernel beam-scan is unavailable (fault injected (VERTDUP_FAULT))")).toBe(1);
    expect(kernels("run-ts")).toEqual({ accumulate: "webassembly", "token-hash": "webassembly", "int8-draw": "webassembly", "beam-scan": fallback });
    expect(outputs("run-ts")[0].split("\n").length).toBeGreaterThan(10);
    expect(outputs("run-ts")).toEqual(outputs("run-wasm"));
    // pleb again on the same signatures, every pair kept (no labels skip pairs) and a wide threshold.
    const pleb = (out: string) => ["pleb", "-w", work, "-o", join(dir, out), "--pairs", "all", "--threshold", "0.8", "--no-verify"];
    expect(run(pleb("pleb-wasm"))).not.toMatch(/kernel/);
    expect(occurrences(run(pleb("pleb-ts"), "kernel:beam-scan"), "the WebAssembly kernel beam-scan is unavailable")).toBe(1);
    expect(kernels("pleb-ts")["beam-scan"]).toBe(fallback);
    expect(outputs("pleb-ts")).toEqual(outputs("pleb-wasm"));
  });

  it("the sign pass's int8 draw: stderr, prepare.json (kernels), the same signatures", () => {
    const dir = tempDir();
    const work = (kind: string) => join(dir, `w-${kind}`);
    const store = (kind: string) => ["signatures.u32", "docs.u32", "offsets.u32"].map((f) => readFileSync(join(work(kind), "store", f)));
    // Small chunks: several sign tasks; the cache fill and the uncached terms both draw.
    const args = (kind: string) => ["prepare", CORPUS, "-w", work(kind), "--chunk-size", "40000"];
    expect(run(args("wasm"))).not.toMatch(/kernel/);
    const stderr = run(args("ts"), "kernel:int8-draw");
    expect(occurrences(stderr, "the WebAssembly kernel int8-draw is unavailable (fault injected (VERTDUP_FAULT))")).toBe(1);
    expect(JSON.parse(readFileSync(join(work("ts"), "prepare.json"), "utf8")).kernels).toEqual({ accumulate: "webassembly", "token-hash": "webassembly", "int8-draw": "typescript (fault injected (VERTDUP_FAULT))" });
    expect(store("ts")[0].length).toBeGreaterThan(0);
    expect(store("ts")).toEqual(store("wasm"));
  });

  it("hamming-full: stderr, the same pairs", () => {
    const dir = tempDir();
    const work = join(dir, "w");
    run(["prepare", CORPUS, "-w", work]);
    const args = (out: string) => ["hamming-full", "-w", work, "-o", join(dir, out), "--threshold", "0.8"];
    expect(run(args("wasm.tsv"))).not.toMatch(/kernel/);
    const stderr = run(args("ts.tsv"), "kernel:hamming");
    expect(occurrences(stderr, "the WebAssembly kernel hamming is unavailable (fault injected (VERTDUP_FAULT))")).toBe(1);
    const pairs = readFileSync(join(dir, "wasm.tsv"), "utf8");
    expect(pairs.split("\n").length).toBeGreaterThan(10);
    expect(readFileSync(join(dir, "ts.tsv"), "utf8")).toBe(pairs);
  });
});
