import yargs, { type Argv } from "yargs";
import { joinSbatchArgs, keepRepeatedValues, protectStdinArg, refuseEmptyValues, restoreStdinArgs } from "./options.js";

/** The parser of vertdup's arguments, before its commands: the CLI's and runPipeline's. */
export function commandLine(args: readonly string[]): Argv {
  const joined = joinSbatchArgs(args);
  return (
    yargs(joined.map(protectStdinArg))
      .scriptName("vertdup")
      .exitProcess(false)
      // Options are read by their --names only: errors then name each unknown option once.
      .parserConfiguration({ "camel-case-expansion": false })
      .middleware(restoreStdinArgs, true)
      .middleware(refuseEmptyValues(joined), true)
      .middleware(keepRepeatedValues(joined), true)
      .strict()
  );
}
