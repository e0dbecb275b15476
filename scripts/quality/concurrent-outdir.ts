/**
 * Whether two runs started together into one -o can leave a mixed set (#31 item 4): starts
 * two `vertdup run` at the same moment into the same fresh -o, with different methods (so
 * that their outputs differ), each with its own temporary work directory, and checks that
 * one is refused (the other succeeds) or both succeed one after the other, and that the -o
 * holds one run's set: every file manifest.json names is the one it names (size, sha256),
 * no other output file is there, and each equals what that method writes alone.
 *
 *   node dist/scripts/quality/concurrent-outdir.js [--tries 50]
 *       [--corpus data-samples/sample.vert.gz] [--methods lsh-cosine,minhash] [--workers 1]
 *
 * Prints each try that went wrong, then `mixed sets: M/N, refused: R/N, both succeeded: S/N,
 * other: X/N`; exit status 1 when M or X > 0.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { VOUCHED_FILES } from "../../src/methods/manifest.js";
import { checkVouched, type VouchedFile } from "../../src/output/output-set.js";

const { values } = parseArgs({
  options: {
    tries: { type: "string", default: "50" },
    corpus: { type: "string", default: "data-samples/sample.vert.gz" },
    methods: { type: "string", default: "lsh-cosine,minhash" },
    workers: { type: "string", default: "1" },
  },
});
const CLI = resolve("dist/bundle/cli.js");
const methods = values.methods.split(",");
if (methods.length !== 2) throw new Error("--methods: give two methods, comma-separated");

interface Ended {
  status: number | null;
  stderr: string;
}

/** `vertdup run` of `method` into `outdir`, started now. */
function start(method: string, outdir: string): Promise<Ended> {
  const child = spawn(process.execPath, [CLI, "run", values.corpus, "-o", outdir, "--method", method, "--quiet", "--no-report", "--workers", values.workers], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  return new Promise((done) => child.on("close", (status) => done({ status, stderr })));
}

/** The output files of `outdir` by name (those manifest.json may name). */
function outputs(outdir: string): Map<string, Buffer> {
  return new Map(VOUCHED_FILES.filter((f) => existsSync(join(outdir, f))).map((f) => [f, readFileSync(join(outdir, f))]));
}

/** What is wrong with the set in `outdir` (empty: one run's set, as `expected` has it by method). */
async function mixture(outdir: string, expected: ReadonlyMap<string, Map<string, Buffer>>): Promise<string[]> {
  const path = join(outdir, "manifest.json");
  if (!existsSync(path)) return ["no manifest.json"];
  const manifest = JSON.parse(readFileSync(path, "utf8")) as { method: string; files: Record<string, VouchedFile> };
  const wrong: string[] = [];
  const present = outputs(outdir);
  for (const name of new Set([...present.keys(), ...Object.keys(manifest.files)])) {
    await checkVouched(outdir, name, manifest.files).catch((err: unknown) => wrong.push(err instanceof Error ? err.message : String(err)));
  }
  const alone = expected.get(manifest.method)!;
  if ([...alone.keys()].join() !== [...present.keys()].join()) wrong.push(`files ${[...present.keys()].join(", ")}; ${manifest.method} alone writes ${[...alone.keys()].join(", ")}`);
  for (const [name, bytes] of present) if (alone.get(name)?.equals(bytes) !== true) wrong.push(`${name} is not what ${manifest.method} writes alone`);
  return wrong;
}

const root = mkdtempSync(join(tmpdir(), "vertdup-concurrent-"));
try {
  const expected = new Map<string, Map<string, Buffer>>();
  for (const method of methods) {
    const outdir = join(root, `alone-${method}`);
    const r = await start(method, outdir);
    if (r.status !== 0) throw new Error(`${method} alone: exit ${r.status}\n${r.stderr}`);
    expected.set(method, outputs(outdir));
  }
  const tries = Number(values.tries);
  let mixed = 0;
  let refused = 0;
  let serial = 0;
  let other = 0;
  for (let t = 0; t < tries; t++) {
    const outdir = join(root, `o-${t}`);
    // Both at the same moment; which is first alternates with the try.
    const order = t % 2 === 0 ? methods : [...methods].reverse();
    const ends = await Promise.all(order.map((m) => start(m, outdir)));
    const statuses = ends.map((e) => e.status).sort();
    const wasRefused = statuses.join() === "0,1" && ends.some((e) => e.status === 1 && /in use by another vertdup run .*output directory \(-o\)/.test(e.stderr));
    if (wasRefused) refused++;
    else if (statuses.join() === "0,0") serial++;
    else {
      other++;
      process.stdout.write(`try ${t + 1}: exits ${ends.map((e, k) => `${order[k]} ${e.status}`).join(", ")}\n${ends.map((e) => e.stderr).join("")}`);
    }
    const wrong = await mixture(outdir, expected);
    if (wrong.length > 0) {
      mixed++;
      process.stdout.write(`try ${t + 1}: mixed set in ${outdir}:\n  ${wrong.join("\n  ")}\n`);
    }
    rmSync(outdir, { recursive: true, force: true });
  }
  process.stdout.write(`mixed sets: ${mixed}/${tries}, refused: ${refused}/${tries}, both succeeded: ${serial}/${tries}, other: ${other}/${tries} (${methods.join(" and ")} on ${values.corpus})\n`);
  process.exitCode = mixed > 0 || other > 0 ? 1 : 0;
} finally {
  rmSync(root, { recursive: true, force: true });
}
