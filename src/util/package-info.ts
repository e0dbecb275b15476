import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root: where package.json is, above this module in src/ or dist/src/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`package.json not found above ${import.meta.url}`);
    dir = up;
  }
  return dir;
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}

/** Peak resident memory of the whole process (all worker threads included), in MiB. */
export function peakRssMiB(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}
