/**
 * CPU time of the count pass on one thread (not a test): the preparatory phase's first pass
 * (`countShard`: parse, normalise, hash, count, df, write the shard files) without the pool.
 *
 *   node dist/scripts/bench-count.js <corpus.vert> [--mb 60] [--repeat 3] [--no-lowercase]
 *
 * Cuts the first `--mb` megabytes of the corpus into 1 MiB chunks beforehand (untimed), then
 * counts them `--repeat` times into a temporary work directory and prints, per repeat, the
 * CPU seconds (user + system: a steadier measure than wall time on a shared machine) and the
 * tokens per CPU second. Run it under `node --cpu-prof` for the profile of the pass.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chunkCorpus, readLimits } from "../src/corpus/chunker.js";
import { countShard, type CountTask } from "../src/features/count-shard.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    mb: { type: "string", default: "60" },
    repeat: { type: "string", default: "3" },
    "no-lowercase": { type: "boolean", default: false },
  },
});
if (positionals.length !== 1) throw new Error("usage: bench-count <corpus.vert> [--mb 60] [--repeat 3] [--no-lowercase]");

const chunks: CountTask["chunk"][] = [];
let bytes = 0;
for await (const chunk of chunkCorpus([positionals[0]], 1 << 20, readLimits())) {
  chunks.push({ ...chunk, bytes: Buffer.from(chunk.bytes) });
  bytes += chunk.bytes.length;
  if (bytes >= Number(values.mb) * 1e6) break;
}
const options: CountTask["options"] = { column: 0, idAttr: "id", paragraphs: false, normalize: "nfc" as const, lowercase: !values["no-lowercase"], keepNumbers: false, shingleSize: 1 };
const workdir = mkdtempSync(join(tmpdir(), "bench-count-"));
try {
  mkdirSync(join(workdir, "shards"));
  for (let r = 0; r < Number(values.repeat); r++) {
    let tokens = 0;
    const from = process.cpuUsage();
    for (const chunk of chunks) tokens += (await countShard({ workdir, chunk, options })).tokens;
    const used = process.cpuUsage(from);
    const cpu = (used.user + used.system) / 1e6;
    console.log(JSON.stringify({ megabytes: Number((bytes / 1e6).toFixed(1)), tokens, cpuSeconds: Number(cpu.toFixed(3)), tokensPerCpuSecond: Math.round(tokens / cpu) }));
  }
} finally {
  rmSync(workdir, { recursive: true, force: true });
}
