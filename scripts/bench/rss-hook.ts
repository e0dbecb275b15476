/**
 * Preloaded into a benchmarked vertdup process (`node --import`): at exit, the main thread
 * writes the process's peak resident set size (KiB, all threads) to $VERTDUP_BENCH_RSS_FILE.
 */
import { writeFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

const target = process.env.VERTDUP_BENCH_RSS_FILE;
if (isMainThread && target !== undefined) {
  process.on("exit", () => writeFileSync(target, String(process.resourceUsage().maxRSS)));
}
