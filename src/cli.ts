#!/usr/bin/env node
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { plebCommand } from "./commands/pleb.js";
import { prepareCommand } from "./commands/prepare.js";
import { runCommand } from "./commands/run.js";
import { VertdupError } from "./util/errors.js";
import { packageVersion } from "./util/package-info.js";

async function main(): Promise<void> {
  await yargs(hideBin(process.argv))
    .scriptName("vertdup")
    .version(packageVersion())
    .command(runCommand)
    .command(prepareCommand)
    .command(plebCommand)
    .demandCommand(1, "name a command (see vertdup --help)")
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
