/**
 * CPU cost of one term vector (not a test): termVector for `--terms` distinct terms of
 * `--bits` components, int8 and float32, best of `--repeat` rounds, in µs per vector
 * (process CPU time, user + system).
 *
 *   node dist/scripts/bench-term-vector.js [--bits 1024] [--terms 20000] [--repeat 5] [--from <random-vectors.js>]
 *
 * `--from` times another build's module instead (e.g. /work/main/dist/src/sketch/random-vectors.js)
 * for a before/after comparison on the same machine.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    bits: { type: "string", default: "1024" },
    terms: { type: "string", default: "20000" },
    repeat: { type: "string", default: "5" },
    from: { type: "string" },
  },
});
const bits = Number(values.bits);
const terms = Number(values.terms);
const repeat = Number(values.repeat);
const url = values.from === undefined ? new URL("../src/sketch/random-vectors.js", import.meta.url).href : pathToFileURL(resolve(values.from)).href;
const { termVector } = (await import(url)) as { termVector: (seed: number, term: number, out: Int8Array | Float32Array) => void };

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

for (const [name, out] of [["int8", new Int8Array(bits)], ["float32", new Float32Array(bits)]] as const) {
  let best = Infinity;
  let check = 0;
  for (let r = 0; r < repeat; r++) {
    const start = cpuSeconds();
    for (let t = 0; t < terms; t++) {
      termVector(1, t * 0x9e37_79b1 + r, out);
      check += out[t % bits];
    }
    best = Math.min(best, cpuSeconds() - start);
  }
  console.log(`${name}: ${((best / terms) * 1e6).toFixed(2)} µs per ${bits}-component vector (best of ${repeat} × ${terms} terms; checksum ${check})`);
}
