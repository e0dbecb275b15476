/**
 * The matrix of the equivalence check: every case runs its steps, in order, in a directory of
 * its own (the same relative layout for both builds), and then the listed files or directories
 * of the two builds are compared.
 */

/** The corpora, by absolute path, so that both builds (and Slurm jobs) name them alike. */
export interface Corpora {
  sample: string;
  kjv: string;
  /** The generated web-shape corpus (.vert.zst). */
  web: string;
  /** The same corpus as plain .vert, cut in two at its middle document. */
  webFirst: string;
  webSecond: string;
}

/** A command line of the CLI (what follows `vertdup`). */
export type Step = string[];

export interface Case {
  name: string;
  steps: Step[];
  /** Files or directories, relative to the case's directory, compared byte for byte. */
  compare: string[];
  /**
   * Indices (work directories of finished runs, relative to the case's directory) compared by
   * what makes them an index: index.json and the files it lists. The rest of a work directory
   * is what a run left to resume from (lsh-cosine's holds the phases' timings).
   */
  indices?: string[];
  /** Current tree only: the last step again with --resume must leave this work directory untouched. */
  resumeWorkdir?: string;
  /** With --slurm: this submission (current tree, `-w SLURM_WORKDIR`), compared with the baseline's local `compare`. */
  slurm?: Step;
  /** The current tree's steps where an option was renamed since the baseline (the same behaviour under its new name). */
  currentSteps?: Step[];
  /** The version that renamed it: a baseline of this version or later runs `steps` as the current tree does. */
  renamedIn?: string;
}

/** Replaced by `--workers=1` and `--workers=2`: a case with it runs once per worker count. */
const W = "--workers={w}";
const METHODS = ["lsh-cosine", "minhash", "simhash384", "exact", "paragraphs"];
export const SLURM_WORKDIR = "work";
const SLURM = ["-w", SLURM_WORKDIR, "--tasks", "3", "--cpus-per-task", "1"];

export function caseTable(c: Corpora): Case[] {
  const table: Case[] = [
    ...METHODS.flatMap((m) =>
      (["sample", "web"] as const).map((corpus) => ({
        name: `run --method ${m} ${corpus}`,
        steps: [["run", c[corpus], "-w", "work", "-o", "out", "--method", m, W]],
        compare: ["out"],
        resumeWorkdir: corpus === "web" ? "work" : undefined,
        slurm: ["slurm", "run", c[corpus], "-o", "out", "--method", m, ...SLURM],
      })),
    ),
    ...["lsh-cosine", "minhash"].map((m) => ({
      name: `run --estimate-recall --method ${m} web`,
      steps: [["run", c.web, "-w", "work", "-o", "out", "--method", m, "--estimate-recall", W]],
      compare: ["out"],
      slurm: ["slurm", "run", c.web, "-o", "out", "--method", m, "--estimate-recall", ...SLURM],
    })),
    // README "Supplementing a corpus": the first half makes the index, the second half is
    // compared with it and appended to it (the updated index is compared too), then cleaned.
    ...METHODS.map((m) => ({
      name: `run --against/--update --method ${m} web halves`,
      steps: [
        ["run", c.webFirst, "-w", "index", "-o", "out-base", "--method", m, W],
        ["run", c.webSecond, "--against", "index", "-o", "out-against", "--method", m, W],
        ["run", c.webSecond, "--against", "index", "--update", "-o", "out-update", "--method", m, W],
        ["clean", c.webSecond, "--from", "out-update", "--mark", "-o", "second.marked.vert"],
      ],
      compare: ["out-base", "out-against", "out-update", "second.marked.vert"],
      indices: ["index"],
    })),
    ...(["kjv", "web"] as const).map((corpus) => ({
      name: `paragraphs ${corpus}`,
      steps: [["paragraphs", c[corpus], "-w", "work", "-o", "out.vert.gz", W]],
      compare: ["out.vert.gz", "out.vert.gz.report.json"],
      resumeWorkdir: corpus === "web" ? "work" : undefined,
      slurm: ["slurm", "paragraphs", c[corpus], "-o", "out.vert.gz", ...SLURM],
    })),
    // 0.6.0's `--count tokens` is `--count tokens-any` since `tokens` became onion's kept-paragraph rule.
    ...(["kjv", "web"] as const).map((corpus) => ({
      name: `paragraphs --count tokens ${corpus}`,
      steps: [["paragraphs", c[corpus], "-o", "out.vert", "--count", "tokens", W]],
      currentSteps: [["paragraphs", c[corpus], "-o", "out.vert", "--count", "tokens-any", W]],
      renamedIn: "0.7.0",
      compare: ["out.vert", "out.vert.report.json"],
    })),
    {
      name: "paragraphs --mark kjv",
      steps: [["paragraphs", c.kjv, "-o", "out.vert.zst", "--mark", W]],
      compare: ["out.vert.zst", "out.vert.zst.report.json"],
    },
    {
      name: "paragraphs --against/--update web halves",
      steps: [
        ["paragraphs", c.webFirst, "-w", "index", "-o", "base.vert", W],
        ["paragraphs", c.webSecond, "--against", "index", "-o", "against.vert", W],
        ["paragraphs", c.webSecond, "--against", "index", "--update", "-o", "update.vert", W],
      ],
      compare: ["base", "against", "update"].flatMap((f) => [`${f}.vert`, `${f}.vert.report.json`]),
      indices: ["index"],
    },
    {
      name: "clean web (removed, --mark, -w)",
      steps: [
        ["run", c.web, "-o", "out", "--method", "minhash", "--workers=2"],
        ["clean", c.web, "--from", "out", "-o", "clean.vert.zst"],
        ["clean", c.web, "--from", "out", "--mark", "-o", "marked.vert.gz"],
        ["clean", c.web, "--from", "out", "-w", "work", "-o", "clean-w.vert"],
      ],
      compare: ["out", "clean.vert.zst", "marked.vert.gz", "clean-w.vert"],
    },
    // calibrate is `run --estimate-recall` (above); simhash384's reference reads the corpus again.
    ...(["simhash384", "paragraphs"] as const).map((m) => ({
      name: `calibrate --method ${m} sample`,
      steps: [["calibrate", c.sample, "-o", "out", "--method", m, W]],
      compare: ["out"],
    })),
    // README "Exact references and the thesis's measures".
    {
      name: "prepare, similarity, hamming-full, pleb, compare kjv",
      steps: [
        ["prepare", c.kjv, "-w", "prep", W],
        ["similarity", "-w", "prep", "-o", "cosine.tsv", "--threshold", "0.8", W],
        ["hamming-full", "-w", "prep", "-o", "hamming.tsv.gz", "--threshold", "0.8", W],
        ["pleb", "-w", "prep", "-o", "pleb", "--pairs", "all", "--no-verify", "--reference", "hamming.tsv.gz", W],
        ["compare", "--reference", "cosine.tsv", "--candidate", "pleb/pairs.tsv", "--vectors-workdir", "prep", "--json", "compare.json"],
      ],
      compare: ["cosine.tsv", "hamming.tsv.gz", "pleb", "compare.json"],
    },
    {
      name: "short-long kjv",
      steps: [["short-long", c.kjv, "-o", "out", W]],
      compare: ["out"],
    },
  ];
  return table.flatMap(perWorkerCount);
}

/** A case with W once per worker count (only the last keeps the resume check and the Slurm run). */
function perWorkerCount(c: Case): Case[] {
  if (!c.steps.some((s) => s.includes(W))) return [c];
  const withCount = (w: number) => (steps: string[][]) => steps.map((s) => s.map((a) => a.replace("{w}", String(w))));
  return [1, 2].map((w) => ({
    ...c,
    name: `${c.name} workers=${w}`,
    steps: withCount(w)(c.steps),
    ...(c.currentSteps === undefined ? {} : { currentSteps: withCount(w)(c.currentSteps) }),
    resumeWorkdir: w === 2 ? c.resumeWorkdir : undefined,
    slurm: w === 2 ? c.slurm : undefined,
  }));
}
