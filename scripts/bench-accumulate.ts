/**
 * CPU time of the sign pass's kernels per (document, term) on one thread (not a test):
 * Projections over a sign memory of cached vectors, as signShard drives it, without the
 * lookups and the shard files.
 *
 *   node dist/scripts/bench-accumulate.js [--vectors 300000] [--terms 30] [--pairs 3000000] [--repeat 3]
 *
 * Documents of `--terms` cached vectors drawn at random from `--vectors`, weighted like tf-idf
 * (counts 1–3 times an idf in (0, 12)), summed and signed `--pairs` (document, term) pairs per
 * repeat, for each kind of sum: float32 vectors, float64 sums (acc); int8 vectors, float64 sums
 * of real weights (acc8x4, before issue 14's fixed point); int8 vectors, int32 sums of the
 * fixed-point weights (acc8d4), and the same documents queued in blocks, summed and signed by one
 * call per block (acc8block, as signShard does). The vector components are random bytes: the kernels' time does
 * not depend on them. Prints the CPU microseconds (user + system) per pair of each repeat.
 */
import { parseArgs } from "node:util";
import { Projections } from "../src/sketch/projections.js";
import { SignMemory } from "../src/sketch/sign-memory.js";
import { FIXED_POINT_BITS } from "../src/sketch/signature.js";
import { Random } from "./bench/random.js";

const { values } = parseArgs({
  options: {
    vectors: { type: "string", default: "300000" },
    terms: { type: "string", default: "30" },
    pairs: { type: "string", default: "3000000" },
    repeat: { type: "string", default: "3" },
  },
});
const BITS = 1024;
const vectors = Number(values.vectors);
const terms = Number(values.terms);
const documents = Math.ceil(Number(values.pairs) / terms);

const random = new Random(1, 1);
const slots = Int32Array.from({ length: documents * terms }, () => random.below(vectors));
const idf = Float64Array.from({ length: documents * terms }, () => 12 * (1 - random.uniform()) * (1 + random.below(3)));
const fixed = idf.map((w) => Math.round(w * 2 ** FIXED_POINT_BITS));

const kinds = [
  { name: "float32, float64 sums (acc)", projection: "float32", weights: idf, integer: false },
  { name: "int8, float64 sums (acc8x4)", projection: "int8", weights: idf, integer: false },
  { name: "int8, int32 fixed point (acc8d4)", projection: "int8", weights: fixed, integer: true },
  { name: "int8, int32 fixed point, blocks (acc8block)", projection: "int8", weights: fixed, integer: true, blocks: true },
] as const;

const out = new Uint32Array(BITS / 32);
for (const kind of kinds) {
  const memory = SignMemory.create(kind.projection, BITS, vectors, 1);
  const v = memory.vectors;
  if (v instanceof Int8Array) for (let i = 0; i < v.length; i++) v[i] = (random.uint32() % 255) - 127;
  else for (let i = 0; i < v.length; i++) v[i] = random.normal();
  const sum = Projections.lease(memory);
  for (let r = 0; r < Number(values.repeat); r++) {
    const from = process.cpuUsage();
    for (let d = 0, t = 0; d < documents; d++) {
      sum.reset(kind.integer);
      if ("blocks" in kind) {
        const [s, w] = [slots.subarray(t, t + terms), kind.weights.subarray(t, t + terms)];
        if (!sum.queue(d, s, w, terms, terms, false)) {
          sum.signQueued(() => {});
          sum.queue(d, s, w, terms, terms, false);
        }
        t += terms;
        continue;
      }
      for (const end = t + terms; t < end; t++) sum.addSlot(slots[t], kind.weights[t]);
      sum.signBits(out, 0);
    }
    sum.signQueued(() => {});
    const used = process.cpuUsage(from);
    console.log(JSON.stringify({ kind: kind.name, vectors, repeat: r, microsecondsPerPair: Number(((used.user + used.system) / (documents * terms)).toFixed(3)) }));
  }
  sum.release();
}
