import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { METHOD_NAMES } from "../../src/core/method-options.js";
import { submittedJob } from "../../src/methods/registry.js";
import { writeBatches } from "../helpers/batches.js";
import { removeTempDirs, tempDir, vertdupAsync, type CliResult } from "../helpers/cli.js";

afterAll(removeTempDirs);

/**
 * docs/ARCHITECTURE.md's step lists (section "Pipelines"), checked against the pipelines: each
 * fenced block whose info string is `steps` is one job, in this format:
 *
 *     <job>: <pattern>
 *       slurm[ <options>][ (<method>, …)]: <steps>
 *
 * - `<job>` is `run --method A|B|…` (one job per method) or `paragraphs`;
 * - `<pattern>` is the job's steps in order, joined by ` → `: `name*` a step only a Slurm array
 *   needs (the local executor skips it), `name?` a step only some runs have, `a? | b?` at most
 *   one of them;
 * - each indented line is a Slurm submission (`slurm run … --method M` or `slurm paragraphs`,
 *   with `-w`, `-o` and `--dry-run`) with `<options>` added (`IDX`: an index of the job's
 *   method), and the batch scripts it writes (`N-<step>.sbatch`) in order; `unit[a → b]` is a
 *   single job `unit` that runs the steps a, b in one process (a pipeline holding the indices'
 *   locks). A `(<method>, …)` list restricts the line to those methods: the others must refuse
 *   the submission.
 *
 * Every concrete list must also fit the job's pattern, and every method the CLI knows must be a
 * job of the doc.
 */

const DOC = new URL("../../docs/ARCHITECTURE.md", import.meta.url);
const CORPUS = "data-samples/sample.vert.gz";

interface Variant {
  line: string;
  options: string[];
  /** The methods it applies to; undefined: all of the job's. */
  methods?: string[];
  /** The Slurm jobs, in order. */
  jobs: string[];
  /** Of a single job that runs a pipeline's steps in one process: those steps. */
  unit?: string[];
}

interface DocJob {
  job: string;
  /** undefined: the `paragraphs` command. */
  methods?: string[];
  pattern: string;
  variants: Variant[];
}

const arrow = (s: string) => s.split(" → ").map((x) => x.trim());

function parseVariant(line: string): Variant {
  const m = /^ {2}slurm((?: [^:(]+?)?)(?: \(([^)]*)\))?: (.+)$/.exec(line);
  if (m === null) throw new Error(`docs/ARCHITECTURE.md: not a variant line of a steps block: ${JSON.stringify(line)}`);
  const options = m[1].trim() === "" ? [] : m[1].trim().split(/\s+/);
  const methods = m[2]?.split(",").map((s) => s.trim());
  const unit = /^(\S+)\[(.*)\]$/.exec(m[3]);
  return unit === null ? { line, options, methods, jobs: arrow(m[3]) } : { line, options, methods, jobs: [unit[1]], unit: arrow(unit[2]) };
}

/** The doc's ```steps blocks. */
function documentedJobs(): DocJob[] {
  const doc = readFileSync(DOC, "utf8");
  const blocks = [...doc.matchAll(/^```steps\n([\s\S]*?)^```$/gm)].map((b) => b[1].trimEnd().split("\n"));
  return blocks.map(([header, ...rest]) => {
    const m = /^(\S.*?): (.+)$/.exec(header);
    if (m === null) throw new Error(`docs/ARCHITECTURE.md: not the header of a steps block: ${JSON.stringify(header)}`);
    const method = /^run --method (\S+)$/.exec(m[1]);
    if (method === null && m[1] !== "paragraphs") throw new Error(`docs/ARCHITECTURE.md: unknown job ${m[1]}`);
    return { job: m[1], methods: method?.[1].split("|"), pattern: m[2], variants: rest.map(parseVariant) };
  });
}

/** Whether `steps` fit the pattern (see above). */
function fits(steps: string[], pattern: string): boolean {
  const parts = arrow(pattern).map((token) => {
    const alternatives = token.split(" | ").map((a) => /^([a-z-]+)([?*]?)$/.exec(a.trim()));
    if (alternatives.some((a) => a === null)) throw new Error(`docs/ARCHITECTURE.md: not a step pattern: ${pattern}`);
    const names = alternatives.map((a) => a![1]).join("|");
    return alternatives.every((a) => a![2] !== "") ? `(?:(?:${names}) )?` : `(?:${names}) `;
  });
  return new RegExp(`^${parts.join("")}$`).test(steps.map((s) => `${s} `).join(""));
}

/** Runs `tasks` at most `limit` at a time (a shared 2-core machine): one async child process each. */
function limited(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= limit) await new Promise<void>((r) => waiting.push(r));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
const queue = limited(2);
const cli = (args: string[]): Promise<CliResult> => queue(() => vertdupAsync(args));

function ok(r: CliResult, what: string): CliResult {
  expect(r.status, `${what}: ${r.stderr}`).toBe(0);
  return r;
}

// The indices of `--against IDX`: a small corpus other than CORPUS (so that --update takes it), one per job.
const indexCorpus = (() => {
  let path: string | undefined;
  return () => (path ??= writeBatches(tempDir(), [30])[0]);
})();
const indices = new Map<string, Promise<string>>();
function indexOf(method: string | undefined): Promise<string> {
  const key = method ?? "paragraphs command";
  let made = indices.get(key);
  if (made === undefined) {
    const dir = join(tempDir(), "index");
    const out = tempDir();
    const args = method === undefined ? ["paragraphs", indexCorpus(), "-o", join(out, "out.vert")] : ["run", indexCorpus(), "--method", method, "-o", out];
    made = cli([...args, "-w", dir, "--quiet", "--workers", "1"]).then((r) => (ok(r, `index of ${key}`), dir));
    indices.set(key, made);
  }
  return made;
}

/** The Slurm submission of a variant (`--dry-run`): its batch scripts' steps in order, and with a unit the steps it runs. */
async function submitted(method: string | undefined, variant: Variant): Promise<{ result: CliResult; jobs?: string[]; unit?: string[] }> {
  const work = join(tempDir(), "w");
  const out = tempDir();
  const options = variant.options.includes("IDX") ? await Promise.all(variant.options.map((o) => (o === "IDX" ? indexOf(method) : o))) : variant.options;
  const command = method === undefined ? ["slurm", "paragraphs", CORPUS, "-o", join(out, "out.vert")] : ["slurm", "run", CORPUS, "--method", method, "-o", out];
  const result = await cli([...command, "-w", work, "--dry-run", ...options]);
  if (result.status !== 0) return { result };
  const scripts = readdirSync(join(work, "slurm")).filter((f) => f.endsWith(".sbatch"));
  const jobs = scripts.sort((a, b) => parseInt(a) - parseInt(b)).map((f) => f.replace(/^\d+-|\.sbatch$/g, ""));
  // The job that `vertdup task <unit>` runs: the pipeline `slurm/run.json` gives, by the local executor (without the slices' steps).
  const { pipeline } = await submittedJob(work);
  const unit = pipeline.unit === undefined ? undefined : pipeline.steps.filter((s) => s.forSlices === undefined).map((s) => s.name);
  return { result, jobs, unit };
}

const JOBS = documentedJobs();

describe("docs/ARCHITECTURE.md's step lists", () => {
  it("has a steps block for every method and for `paragraphs`", () => {
    expect(JOBS.flatMap((j) => j.methods ?? []).sort()).toEqual([...METHOD_NAMES].sort());
    expect(JOBS.filter((j) => j.methods === undefined).map((j) => j.job)).toEqual(["paragraphs"]);
    for (const job of JOBS) {
      expect(job.variants.length, job.job).toBeGreaterThan(0);
      for (const v of job.variants) expect(fits(v.unit ?? v.jobs, job.pattern), `${job.job}: ${v.line.trim()} does not fit ${job.pattern}`).toBe(true);
    }
  });

  it.each(JOBS.map((j) => [j.job, j] as const))("%s: are the jobs its Slurm submissions write", async (_, job) => {
    const cases = (job.methods ?? [undefined]).flatMap((method) => job.variants.map((variant) => ({ method, variant })));
    // A method's variants one after the other: they share its index, which a submission may lock.
    const perMethod = (job.methods ?? [undefined]).map(async (method) => {
      const done: Awaited<ReturnType<typeof submitted>>[] = [];
      for (const variant of job.variants) done.push(await submitted(method, variant));
      return done;
    });
    const results = (await Promise.all(perMethod)).flat();
    cases.forEach(({ method, variant }, k) => {
      const what = `${method ?? "paragraphs"}: ${variant.line.trim()}`;
      const { result, jobs, unit } = results[k];
      if (method !== undefined && variant.methods !== undefined && !variant.methods.includes(method)) {
        expect(result.status, `${what}: the doc says ${method} has no such run, but it was submitted`).not.toBe(0);
        return;
      }
      ok(result, what);
      // As the doc writes them, so that a failure shows both lists whole.
      expect(jobs?.join(" → "), what).toBe(variant.jobs.join(" → "));
      expect(unit?.join(" → "), what).toBe(variant.unit?.join(" → "));
    });
  }, 120_000);
});
