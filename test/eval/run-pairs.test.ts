import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EdgeList, NO_DOC } from "../../src/clusters/duplicate-graph.js";
import { comparePairs } from "../../src/eval/compare.js";
import { readPairsFile, type PairTable } from "../../src/eval/pairs-file.js";
import { ReferenceRecall } from "../../src/eval/reference-recall.js";
import { readRunPairs, VirtualPairs } from "../../src/eval/run-pairs.js";
import { DocIds } from "../../src/output/doc-ids.js";
import { writeGraphOutputs } from "../../src/output/graph-outputs.js";
import { escapeField } from "../../src/output/tsv-field.js";
import type { SignatureStore } from "../../src/runs/signature-store.js";
import { vertdup } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-runpairs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let made = 0;

/** Ids that need escaping in every TSV. */
const idOf = (k: number) => [`d${k}`, `tab\t${k}`, `nl\n${k}`, `bs\\${k}`, `cr\r${k}\\t`][k % 5];

describe("a run's pairs.tsv with groups.tsv beside it", () => {
  it("counts exactly the brute-force expansion, in edges and in all mode, with escaped ids", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 25 }),
        fc.array(fc.integer({ min: 0, max: 1 << 20 }), { minLength: 120, maxLength: 120 }),
        async (n, seed) => {
          let at = 0;
          const next = (m: number) => seed[at++ % seed.length] % m;
          const firstOf = new Uint32Array(n);
          const leaders: number[] = [];
          for (let d = 0; d < n; d++) {
            const r = next(10);
            firstOf[d] = r === 0 ? NO_DOC : r < 5 && leaders.length > 0 ? leaders[next(leaders.length)] : (leaders.push(d), d);
          }
          const edges = new EdgeList();
          const linked = new Set<string>();
          for (let k = next(n); k > 0 && leaders.length > 1; k--) {
            const [a, b] = [leaders[next(leaders.length)], leaders[next(leaders.length)]];
            if (a === b || linked.has(`${Math.min(a, b)},${Math.max(a, b)}`)) continue;
            linked.add(`${Math.min(a, b)},${Math.max(a, b)}`);
            edges.push(a, b, 0.5 + next(100) / 200);
          }
          // Brute force: every document pair with its similarity.
          const sim = new Map<string, number>();
          for (let a = 0; a < n; a++) {
            for (let b = a + 1; b < n; b++) {
              if (firstOf[a] === NO_DOC || firstOf[b] === NO_DOC) continue;
              if (firstOf[a] === firstOf[b]) sim.set(`${a},${b}`, 1);
              for (let k = 0; k < edges.length; k++) {
                const [x, y] = [edges.a(k), edges.b(k)];
                if ((x === firstOf[a] && y === firstOf[b]) || (y === firstOf[a] && x === firstOf[b])) sim.set(`${a},${b}`, edges.similarity(k));
              }
            }
          }
          // Reference: some true pairs and some false ones.
          const refLines: string[] = [];
          for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) if (next(3) === 0) refLines.push(`${escapeField(idOf(a))}\t${escapeField(idOf(b))}\t0.9\n`);
          const base = join(dir, String(made++));
          mkdirSync(base);
          writeFileSync(join(base, "ref.tsv"), "doc_a\tdoc_b\tsimilarity\n" + refLines.join(""));
          const ids = DocIds.fromLists([Array.from({ length: n }, (_, k) => idOf(k))]);
          const graph = { documents: n, firstOf, edges };
          const results = [];
          for (const mode of ["edges", "all"] as const) {
            mkdirSync(join(base, mode));
            await writeGraphOutputs(join(base, mode), graph, ids, new Uint32Array(n), { keep: "first", pairs: { mode, limit: 0 } });
            const table = DocIds.empty();
            const run = await readRunPairs(join(base, mode, "pairs.tsv"), table);
            const reference = await readPairsFile(join(base, "ref.tsv"), table);
            results.push(comparePairs(reference, new VirtualPairs(run, table), { referenceThreshold: 0, candidateThreshold: 0.75, sweep: [0.5] }));
          }
          const inRef = await readPairsFile(join(base, "ref.tsv"));
          const refKeys = new Set(Array.from(inRef.a, (x, k) => [inRef.ids.get(x), inRef.ids.get(inRef.b[k])].join("\u0000")));
          const isRef = (a: number, b: number) => refKeys.has([idOf(a), idOf(b)].join("\u0000"));
          const above = [...sim].filter(([, s]) => s >= 0.75);
          const expected = {
            reference: refLines.length,
            candidate: above.length,
            truePositives: above.filter(([k]) => isRef(...(k.split(",").map(Number) as [number, number]))).length,
          };
          for (const r of results) {
            expect(r.retrieval).toMatchObject(expected);
            expect(r.sweep[0].candidate).toBe(sim.size);
            expect(r.sweep[0].truePositives).toBe([...sim.keys()].filter((k) => isRef(...(k.split(",").map(Number) as [number, number]))).length);
          }
          rmSync(base, { recursive: true });
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("vertdup compare", () => {
  it("judges a run's output directory by every pair it stands for, with escaped ids", async () => {
    const base = join(dir, "cli");
    mkdirSync(base);
    // Group {a\tb, c, d\\e} and an edge from its leader to f (0.9): 3 + 3 pairs.
    const ids = DocIds.fromLists([["a\tb", "c", "d\\e", "f"]]);
    const edges = new EdgeList();
    edges.push(0, 3, 0.9);
    await writeGraphOutputs(base, { documents: 4, firstOf: Uint32Array.from([0, 0, 0, 3]), edges }, ids, [1, 1, 1, 1], { keep: "first", pairs: { mode: "edges", limit: 0 } });
    writeFileSync(join(base, "ref.tsv"), "doc_a\tdoc_b\tsimilarity\nc\td\\\\e\t1\nd\\\\e\tf\t0.9\na\\tb\tg\t0.9\n");
    const r = vertdup(["compare", "--reference", join(base, "ref.tsv"), "--candidate", join(base, "pairs.tsv"), "--json", join(base, "r.json")]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("found 2 of 3");
    expect(JSON.parse(readFileSync(join(base, "r.json"), "utf8")).retrieval).toMatchObject({ reference: 3, candidate: 6, truePositives: 2 });
  });
});

describe("groups.tsv as read by compare", () => {
  it("rejects a bad header, groups out of order and a document in two groups", async () => {
    const base = join(dir, "badgroups");
    mkdirSync(base);
    writeFileSync(join(base, "pairs.tsv"), "doc_a\tdoc_b\tsimilarity\n");
    const cases: [string, RegExp][] = [
      ["group\tdoc\n1\ta\t1\n", /groups\.tsv:1: not a groups\.tsv header/],
      ["group\tdoc\tordinal\n2\ta\t1\n2\tb\t2\n1\tc\t3\n", /groups\.tsv:4: malformed groups\.tsv row/],
      ["group\tdoc\tordinal\n1\ta\t1\n1\tb\t2\n2\tc\t3\n2\tb\t4\n", /groups\.tsv: document b is in two groups/],
    ];
    for (const [text, message] of cases) {
      writeFileSync(join(base, "groups.tsv"), text);
      const ids = DocIds.empty();
      await expect(readRunPairs(join(base, "pairs.tsv"), ids).then((run) => new VirtualPairs(run, ids))).rejects.toThrow(message);
    }
  });
});

describe("ReferenceRecall", () => {
  it("counts reference pairs through signature pairs, without expanding them", () => {
    // Signatures: 0 → docs {0, 1, 2}, 1 → {3}, 2 → {4, 5}; document 6 has none.
    const store: SignatureStore = { words: 1, count: 3, signatures: new Uint32Array(3), offsets: Uint32Array.from([0, 3, 4, 6]), docs: Uint32Array.from([0, 1, 2, 3, 4, 5]) };
    const ids = DocIds.fromLists([["a", "b", "c", "d", "e", "f", "g"]]);
    const table = DocIds.empty();
    const pairs: [string, string][] = [["a", "b"], ["c", "b"], ["a", "d"], ["e", "c"], ["f", "b"], ["d", "e"], ["a", "g"], ["e", "f"]];
    const reference: PairTable = {
      path: "ref",
      ids: table,
      a: Uint32Array.from(pairs, ([x]) => table.intern(x)),
      b: Uint32Array.from(pairs, ([, y]) => table.intern(y)),
      similarity: new Float64Array(pairs.length).fill(1),
    };
    const recall = new ReferenceRecall(reference, ids, store);
    recall.addIdentical();
    expect(recall.recall()).toBe(3 / 8); // ab, cb, ef
    recall.addSignaturePair(2, 0);
    expect(recall.recall()).toBe(5 / 8); // + ec, fb
    recall.addSignaturePair(0, 1);
    expect(recall.recall()).toBe(6 / 8); // + ad; de needs (1, 2), ag never (g has no signature)
    expect(() => new ReferenceRecall({ ...reference, ids: DocIds.fromLists([["zz", "b", "c", "d", "e", "f", "g"]]) }, ids, store)).toThrow(/zz is not in the prepared corpus/);
  });
});
