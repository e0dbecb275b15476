import type { MethodRun, SetMethod } from "../../../src/methods/sets/set-method.js";
import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanCorpus } from "../../../src/clean/clean-corpus.js";
import type { KeepPolicy } from "../../../src/core/method-options.js";
import { readIndex } from "../../../src/workdir/index-store.js";
import { writeBatches } from "../../helpers/batches.js";
import { FEATURES } from "../features.js";
import { runSetMethod } from "../../helpers/set-method.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-supplement-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SIZES = [60, 30, 30];
const [BASE, BATCH1, BATCH2] = writeBatches(dir, SIZES);

function methodRun(method: SetMethod, keep: KeepPolicy, extra: Partial<MethodRun> = {}): MethodRun {
  return { method, features: FEATURES, search: { threshold: 0.8, maxDistance: 5, memory: 2 ** 31 }, keep, pairs: { mode: "edges", limit: 0 }, report: false, ...extra };
}

/**
 * clusters.tsv of one run over the concatenation, keeping the clusters with a document at or
 * after `firstNew`, each row as `id ordinal cluster representative dup_of similarity`.
 */
function expectedRows(outdir: string, firstNew: number): string[] {
  const rows = readFileSync(join(outdir, "clusters.tsv"), "utf8").trim().split("\n").slice(1).map((l) => l.split("\t"));
  const withNew = new Set(rows.filter((f) => Number(f[1]) > firstNew).map((f) => f[2]));
  return rows.filter((f) => withNew.has(f[2])).map((f) => f.join("\t"));
}

/**
 * clusters.tsv of a run with --against in the same form: each source's ordinals shifted by
 * where it starts in the combined order (`starts`: index directory, or "" for the new inputs).
 */
function incrementalRows(outdir: string, starts: Map<string, number>): string[] {
  const lines = readFileSync(join(outdir, "clusters.tsv"), "utf8").trim().split("\n");
  expect(lines[0]).toBe("doc\tindex\tordinal\tcluster\trepresentative\tdup_of\tsimilarity");
  return lines.slice(1).map((l) => {
    const [id, source, ordinal, ...rest] = l.split("\t");
    expect(starts.has(source)).toBe(true);
    return [id, Number(ordinal) + (starts.get(source) ?? NaN), ...rest].join("\t");
  });
}

/** The part of a cleaned concatenation from its document `firstNew` (0-based) on. */
function tail(text: string, firstNew: number): string {
  const starts = [...text.matchAll(/^<doc /gm)].map((m) => m.index);
  return firstNew < starts.length ? text.slice(starts[firstNew]) : "";
}

describe("run --against / --update equals one run over the concatenation (clusters with a new document)", () => {
  const cases: [SetMethod, number, KeepPolicy][] = [];
  for (const method of ["exact", "minhash", "simhash384", "paragraphs"] as const) for (const workers of [1, 2]) cases.push([method, workers, "first"]);
  cases.push(["minhash", 2, "longest"]);

  it.each(cases)("%s, --workers %i, --keep %s", async (method, workers, keep) => {
    const exec = { workers, chunkBytes: 1 << 12 };
    const at = join(dir, `${method}-${workers}-${keep}`);
    const index = join(at, "index");
    await runSetMethod([BASE], index, join(at, "out0"), methodRun(method, keep, { saveIndex: true }), exec);
    const incremental = keep === "first" ? "older" : keep;
    const batches = [BATCH1, BATCH2];
    let firstNew = SIZES[0];
    let sawOld = false;
    for (const [b, batch] of batches.entries()) {
      const inputs = [BASE, ...batches.slice(0, b + 1)];
      const full = join(at, `full${b + 1}`);
      await runSetMethod(inputs, join(at, `wfull${b + 1}`), full, methodRun(method, keep), exec);
      const out = join(at, `out${b + 1}`);
      const m = await runSetMethod([batch], join(at, `w${b + 1}`), out, methodRun(method, incremental, { against: [index], update: true }), exec);
      // minhash verifies only candidates with a new document: the index's edges answer for the others.
      if (method === "minhash") expect(m.counts.verifiedCandidates).toBeLessThan(m.counts.candidates);
      const expected = expectedRows(full, firstNew);
      expect(incrementalRows(out, new Map([[index, 0], ["", firstNew]]))).toEqual(expected);
      sawOld ||= expected.some((row) => Number(row.split("\t")[1]) <= firstNew);
      for (const mark of [true, false]) {
        const whole = join(at, `full${b + 1}-${mark}.vert`);
        await cleanCorpus(inputs, { from: full, output: whole, mark });
        const part = join(at, `batch${b + 1}-${mark}.vert`);
        await cleanCorpus([batch], { from: out, output: part, mark });
        expect(readFileSync(part, "utf8")).toBe(tail(readFileSync(whole, "utf8"), firstNew - (mark ? 0 : removedBefore(full, firstNew))));
      }
      firstNew += SIZES[b + 1];
      expect((await readIndex(index)).documents).toBe(firstNew);
    }
    // The planted copies join new documents to old ones, so the test compares clusters that cross batches.
    expect(sawOld).toBe(true);
  });
});

/** Documents before `firstNew` that a clean of the concatenation removes (non-representatives). */
function removedBefore(outdir: string, firstNew: number): number {
  const rows = readFileSync(join(outdir, "clusters.tsv"), "utf8").trim().split("\n").slice(1).map((l) => l.split("\t"));
  return rows.filter((f) => Number(f[1]) <= firstNew && f[3] === "0").length;
}

describe("run --against two indices equals one run over both corpora and the new inputs", () => {
  it.each(["exact", "minhash"] as const)("%s", async (method) => {
    const exec = { workers: 2, chunkBytes: 1 << 12 };
    const at = join(dir, `two-${method}`);
    const [first, second] = [join(at, "first"), join(at, "second")];
    await runSetMethod([BASE], first, join(at, "out-first"), methodRun(method, "first", { saveIndex: true }), exec);
    await runSetMethod([BATCH1], second, join(at, "out-second"), methodRun(method, "first", { saveIndex: true }), exec);
    const full = join(at, "full");
    await runSetMethod([BASE, BATCH1, BATCH2], join(at, "wfull"), full, methodRun(method, "first"), exec);
    const out = join(at, "out");
    await runSetMethod([BATCH2], join(at, "w"), out, methodRun(method, "older", { against: [first, second] }), exec);
    const starts = new Map([[first, 0], [second, SIZES[0]], ["", SIZES[0] + SIZES[1]]]);
    const expected = expectedRows(full, SIZES[0] + SIZES[1]);
    expect(incrementalRows(out, starts)).toEqual(expected);
    // Clusters join new documents to old ones (for minhash, of both indices).
    const ordinals = expected.map((row) => Number(row.split("\t")[1]));
    expect(ordinals.some((o) => o <= SIZES[0] + SIZES[1])).toBe(true);
    if (method === "minhash") expect(ordinals.some((o) => o <= SIZES[0]) && ordinals.some((o) => o > SIZES[0] && o <= SIZES[0] + SIZES[1])).toBe(true);
  });
});
