/**
 * Preloaded into a benchmarked vertdup process (`node --import`): at exit, the main thread
 * writes the process's peak resident set size (KiB) and its user and system CPU time
 * (microseconds), all threads, to $VERTDUP_BENCH_RSS_FILE as `maxRSS user system`. CPU time
 * is the figure that stays comparable when other jobs share the machine.
 */
import { writeFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

const target = process.env.VERTDUP_BENCH_RSS_FILE;
if (isMainThread && target !== undefined) {
  process.on("exit", () => {
    const u = process.resourceUsage();
    writeFileSync(target, `${u.maxRSS} ${u.userCPUTime} ${u.systemCPUTime}`);
  });
}
