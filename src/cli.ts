#!/usr/bin/env node
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { executionOptionsFrom, plebOptionsFrom, prepareOptionsFrom, withExecutionOptions, withPlebOptions, withPrepareOptions } from "./cli-options.js";
import { prepare } from "./coordinator/prepare.js";
import { plebPhase } from "./coordinator/pleb-phase.js";
import { stderrReporter } from "./coordinator/progress.js";
import { VertdupError } from "./util/errors.js";
import { ensureWritableDir } from "./util/output-dir.js";
import { packageVersion } from "./util/package-info.js";
import type { RunManifest } from "./output/manifest.js";

function summary(outdir: string, m: RunManifest): string {
  const c = m.counts;
  const seconds = Object.values(m.phases).reduce((s, p) => s + p.seconds, 0);
  return (
    `pairs: ${join(outdir, "pairs.tsv")}\n` +
    `${c.documents} documents, ${c.tokens} tokens, ${c.distinctSignatures} distinct signatures → ` +
    `${c.pairs} pairs ≥ ${m.pleb.threshold} in ${seconds.toFixed(1)} s`
  );
}

async function main(): Promise<void> {
  await yargs(hideBin(process.argv))
    .scriptName("vertdup")
    .version(packageVersion())
    .command(
      "run <inputs..>",
      "whole pipeline: corpus → signatures → PLEB → pairs",
      (y) =>
        withExecutionOptions(withPlebOptions(withPrepareOptions(y)))
          .positional("inputs", { type: "string", array: true, demandOption: true, describe: ".vert, .vert.gz, .vert.zst or - (stdin)" })
          .option("o", { alias: "outdir", type: "string", demandOption: true, describe: "output directory" })
          .option("w", { alias: "workdir", type: "string", describe: "work directory to keep (default: temporary, removed)" }),
      async (a) => {
        const exec = executionOptionsFrom(a);
        const prepOpts = prepareOptionsFrom(a);
        const plebOpts = plebOptionsFrom(a);
        await ensureWritableDir(a.o);
        const reporter = stderrReporter(exec.quiet);
        const workdir = a.w ?? (await mkdtemp(join(exec.tmpDir ?? tmpdir(), "vertdup-")));
        try {
          await prepare(a.inputs as string[], workdir, prepOpts, exec, reporter);
          const manifest = await plebPhase(workdir, a.o, plebOpts, exec, reporter);
          process.stdout.write(summary(a.o, manifest) + "\n");
        } finally {
          if (a.w === undefined) await rm(workdir, { recursive: true, force: true });
        }
      },
    )
    .command(
      "prepare <inputs..>",
      "preparatory half: corpus → signature store in the work directory",
      (y) =>
        withExecutionOptions(withPrepareOptions(y))
          .positional("inputs", { type: "string", array: true, demandOption: true })
          .option("w", { alias: "workdir", type: "string", demandOption: true, describe: "work directory" }),
      async (a) => {
        const exec = executionOptionsFrom(a);
        const m = await prepare(a.inputs as string[], a.w, prepareOptionsFrom(a), exec, stderrReporter(exec.quiet));
        process.stdout.write(`prepared ${m.counts.documents} documents, ${m.counts.distinctSignatures} distinct signatures in ${a.w}\n`);
      },
    )
    .command(
      "pleb",
      "PLEB half: signature store → similar pairs (re-run with other settings at will)",
      (y) =>
        withExecutionOptions(withPlebOptions(y))
          .option("w", { alias: "workdir", type: "string", demandOption: true, describe: "prepared work directory" })
          .option("o", { alias: "outdir", type: "string", demandOption: true, describe: "output directory" }),
      async (a) => {
        const exec = executionOptionsFrom(a);
        const manifest = await plebPhase(a.w, a.o, plebOptionsFrom(a), exec, stderrReporter(exec.quiet));
        process.stdout.write(summary(a.o, manifest) + "\n");
      },
    )
    .demandCommand(1, "name a command: run, prepare or pleb")
    .strict()
    .fail((msg, err) => {
      if (err) throw err;
      process.stderr.write(`vertdup: ${msg}\n(see vertdup --help)\n`);
      process.exit(2);
    })
    .parseAsync();
}

main().catch((err: unknown) => {
  if (err instanceof VertdupError) {
    process.stderr.write(`vertdup: error: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`vertdup: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(70);
});
