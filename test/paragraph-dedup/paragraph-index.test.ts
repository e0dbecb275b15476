import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { lockWorkdir } from "../../src/workdir/lock.js";
import { KEY_FORMAT, keySegments, rangesRole, readSegment } from "../../src/paragraph-dedup/ngram-index.js";
import { BOUNDARIES, COUNT_RULES, DEFAULT_PARAGRAPH, type ParagraphOptions } from "../../src/core/paragraph-options.js";
import { paragraphs, type ParagraphRun } from "../../src/paragraph-dedup/pipeline.js";
import { indexContent, IndexUpdate, newIndex, readIndex } from "../../src/workdir/index-store.js";
import { removeTempDirs, tempDir, vertdup, vertdupAsync } from "../helpers/cli.js";
import { cleanupVerts, missingPath, writeVert } from "../helpers/vert.js";
import { randomCorpus } from "./random-corpus.js";

afterAll(() => {
  cleanupVerts();
  removeTempDirs();
});
vi.setConfig({ testTimeout: 60_000 });

interface Setup {
  workers?: number;
  memory?: number;
  chunkBytes?: number;
  inProcess?: boolean;
}

async function dedup(inputs: string[], opts: Partial<ParagraphOptions>, run: ParagraphRun = {}, s: Setup = {}): Promise<string> {
  const output = missingPath("out.vert");
  await paragraphs(inputs, output, { ...DEFAULT_PARAGRAPH, ...opts }, { workers: s.workers ?? 2, chunkBytes: s.chunkBytes ?? 1 << 20, quiet: true }, {
    memory: s.memory,
    inProcess: s.inProcess ?? true,
    ...run,
  });
  return readFileSync(output, "utf8");
}

/**
 * One random corpus cut at document starts into a base and two batches: the batches repeat
 * paragraphs of the base and of each other (randomCorpus copies earlier paragraphs).
 */
function threeParts(seed: number, docs: number): string[] {
  const lines = randomCorpus(seed, docs).split("\n");
  const starts = lines.flatMap((l, i) => (l.startsWith("<doc ") ? [i] : []));
  const cut = [0, starts[Math.floor(starts.length * 0.6)], starts[Math.floor(starts.length * 0.8)], lines.length - 1];
  return [0, 1, 2].map((k) => `${lines.slice(cut[k], cut[k + 1]).join("\n")}\n`);
}

/** Outputs of base (-w), batch 1 (--against --update) and batch 2 (--against --update), each a separate run. */
async function incremental(parts: string[], opts: Partial<ParagraphOptions>, s: Setup = {}): Promise<{ outs: string[]; index: string }> {
  const index = join(tempDir(), "base.idx");
  const [base, ...batches] = parts.map((p) => writeVert(p));
  const outs = [await dedup([base], opts, { workdir: index }, s)];
  for (const batch of batches) outs.push(await dedup([batch], opts, { against: [index], update: true }, s));
  return { outs, index };
}

async function sortedIndexKeys(dir: string): Promise<string[]> {
  const keys: string[] = [];
  for (const segment of await keySegments(dir, await readIndex(dir))) {
    for (const pairs of readSegment(segment)) for (let i = 0; i < pairs.length; i += 2) keys.push(`${pairs[i + 1]}:${pairs[i]}`);
  }
  return keys.sort();
}

describe("vertdup paragraphs --against / --update: one run over the concatenation", () => {
  it("base + batch 1 + batch 2, each updating the index: every --count, --boundary and --mark", async () => {
    for (const seed of [1]) {
      const parts = threeParts(seed, 150);
      // `tokens` (onion's sequential rule) keeps no index: it refuses -w and --against.
      for (const count of COUNT_RULES.filter((c) => c !== "tokens")) {
        for (const boundary of BOUNDARIES) {
          for (const mark of [false, true]) {
            const opts = { count, boundary, mark, ngram: 3 };
            const whole = await dedup(parts.map((p) => writeVert(p)), opts);
            const { outs } = await incremental(parts, opts);
            expect(outs.join("")).toBe(whole);
            // Marked lines are one per input line: each batch's own part is exact.
            if (mark) expect(outs.map((o) => o.split("\n").length - 1)).toEqual(parts.map((p) => p.split("\n").length - 1));
          }
        }
      }
    }
  });

  it("on pools of 1 and 3 workers, small chunks, and external mode with split tables: the same outputs and index keys", async () => {
    const parts = threeParts(3, 200);
    const opts = { ngram: 2 };
    const whole = await dedup(parts.map((p) => writeVert(p)), opts);
    const memory = await incremental(parts, opts, { inProcess: false, workers: 1 });
    const external = await incremental(parts, opts, { inProcess: false, workers: 3, chunkBytes: 400, memory: 3000 });
    expect(memory.outs.join("")).toBe(whole);
    expect(external.outs.join("")).toBe(whole);
    // External mode split the tables: the index's files cover smaller key ranges, the keys are the same.
    const rangesOf = async (dir: string) => (await keySegments(dir, await readIndex(dir))).map((s) => s.range.bits);
    expect(Math.max(...(await rangesOf(external.index)))).toBeGreaterThan(8);
    expect(Math.max(...(await rangesOf(memory.index)))).toBe(8);
    expect(await sortedIndexKeys(external.index)).toEqual(await sortedIndexKeys(memory.index));
    // A memory-mode batch against the index written in external mode, and the reverse.
    const batch = writeVert(parts[2]);
    const tail = memory.outs[2];
    expect(await dedup([batch], opts, { against: [external.index] })).toBe(tail);
    expect(await dedup([batch], opts, { against: [memory.index] }, { inProcess: false, workers: 2, chunkBytes: 300, memory: 2000 })).toBe(tail);
  });

  it("several --against indices count in their order, as the indices' corpora before the inputs; without --update the index is unchanged", async () => {
    const parts = threeParts(4, 150);
    const [a, b, c] = parts.map((p) => writeVert(p));
    const dirA = join(tempDir(), "a.idx");
    const dirB = join(tempDir(), "b.idx");
    await dedup([a], {}, { workdir: dirA });
    // b's own index holds b's n-grams alone (its run was against a).
    await dedup([b], {}, { workdir: dirB, against: [dirA] });
    const before = await indexContent(dirA);
    const whole = await dedup([a, b, c], {});
    const tail = await dedup([c], {}, { against: [dirA, dirB] });
    expect(whole.endsWith(tail)).toBe(true);
    expect(tail).toBe(whole.slice(whole.length - tail.length));
    expect(tail).not.toBe(await dedup([c], {}));
    expect(await indexContent(dirA)).toEqual(before);
    expect((await readIndex(dirB)).batches.map((x) => x.inputs)).toEqual([[b]]);
  });

  it("the structure tag does not change the n-grams: an index made with --structure p serves a --structure doc batch", async () => {
    const parts = threeParts(5, 120);
    const [a, b] = parts.map((p) => writeVert(p));
    const dir = join(tempDir(), "a.idx");
    await dedup([a], { structure: "p" }, { workdir: dir });
    const whole = await dedup([a, b], { structure: "doc" });
    const tail = await dedup([b], { structure: "doc" }, { against: [dir] });
    expect(tail).toBe(whole.slice(whole.length - tail.length));
  });
});

describe("vertdup paragraphs -w: the work directory becomes an index", () => {
  it("holds the index and no step's saved result once the run completes, records the batches, and a new run there replaces it", async () => {
    const parts = threeParts(6, 100);
    const { index } = await incremental(parts, {});
    const manifest = await readIndex(index);
    expect(manifest.method).toBe("paragraphs");
    expect(manifest.options).toEqual({ "--ngram": 7, "--boundary": "doc", "--doc-tag": "doc", "--normalize": "nfc" });
    const docs = parts.map((p) => p.split("\n").filter((l) => l.startsWith("<doc ")).length);
    expect(manifest.batches.map((b) => [b.batch, b.documents, b.firstOrdinal])).toEqual([
      [0, docs[0], 0],
      [1, docs[1], docs[0]],
      [2, docs[2], docs[0] + docs[1]],
    ]);
    expect(manifest.documents).toBe(docs[0] + docs[1] + docs[2]);
    // Besides the index, what tells a --resume that the run is finished: its configuration and its steps' markers.
    expect(readdirSync(index).sort()).toEqual([".vertdup-workdir", "config.json", "index", "index.json", "markers"]);
    expect(readdirSync(join(index, "markers")).sort()).toEqual(["paragraphs-index.done", "paragraphs-render.done", "paragraphs-repeats.done"]);
    expect(readdirSync(join(index, "index")).sort()).toEqual(["g0001", "g0002", "g0003"]);
    expect(readdirSync(join(index, "index", "g0002")).sort()).toEqual(["ngrams.keys", "ngrams.ranges.json"]);
    // The index is the set of every n-gram of base + batches: the same as one run's over the whole.
    const wholeIndex = join(tempDir(), "whole.idx");
    await dedup(parts.map((p) => writeVert(p)), {}, { workdir: wholeIndex });
    expect(await sortedIndexKeys(index)).toEqual(await sortedIndexKeys(wholeIndex));
    // A new run in the directory starts a new index.
    await dedup([writeVert(parts[2])], {}, { workdir: index });
    expect((await readIndex(index)).batches.length).toBe(1);
    expect(readdirSync(join(index, "index"))).toEqual(["g0001"]);
  });

  it("a run that fails leaves no index in its work directory", async () => {
    const dir = join(tempDir(), "w");
    await dedup([writeVert(threeParts(7, 30)[0])], {}, { workdir: dir });
    await expect(dedup([writeVert("<note/>\n")], {}, { workdir: dir })).rejects.toThrow("the corpus has no documents");
    expect(existsSync(join(dir, "index.json"))).toBe(false);
  });
});

describe("vertdup paragraphs --against: refusals", () => {
  const base = async () => {
    const dir = join(tempDir(), "base.idx");
    await dedup([writeVert(threeParts(8, 40)[0])], {}, { workdir: dir });
    return dir;
  };

  it("--update without exactly one --against; the index as the run's own -w", async () => {
    const dir = await base();
    const batch = writeVert(threeParts(8, 40)[1]);
    await expect(dedup([batch], {}, { update: true })).rejects.toThrow("--update appends to one index: give exactly one --against (none given)");
    await expect(dedup([batch], {}, { update: true, against: [dir, dir] })).rejects.toThrow("give exactly one --against (2 given)");
    await expect(dedup([batch], {}, { against: [dir], workdir: join(dir, ".") })).rejects.toThrow(`${dir}: the --against index is also the run's work directory (-w)`);
    expect((await readIndex(dir)).batches.length).toBe(1);
  });

  it("a batch the index holds already: --update refused naming the batch, a read-only run warned", async () => {
    const dir = join(tempDir(), "base.idx");
    const [base, batch] = threeParts(8, 40).map((p) => writeVert(p));
    await dedup([base], {}, { workdir: dir });
    await dedup([batch], {}, { against: [dir], update: true });
    const index = await readIndex(dir);
    await expect(dedup([batch], {}, { against: [dir], update: true })).rejects.toThrow(`${batch} has the same bytes as ${batch}, batch 1 of ${dir} (added ${index.batches[1].created}): refusing to append it again`);
    await expect(dedup([base], {}, { against: [dir], update: true })).rejects.toThrow(`batch 0 of ${dir}`);
    expect(await readIndex(dir)).toEqual(index);
    const r = await vertdupAsync(["paragraphs", base, "-o", missingPath("again.vert"), "--against", dir, "--quiet"]);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`vertdup: warning: ${base} has the same bytes as ${base}, batch 0 of ${dir}`);
  });

  it("a read-only run (no --update) holds the index's lock too: refused while another process holds it, the lock gone after the run", async () => {
    const dir = await base();
    const batch = writeVert(threeParts(8, 40)[1]);
    const held = await lockWorkdir(dir);
    const r = await vertdupAsync(["paragraphs", batch, "-o", missingPath("locked.vert"), "--against", dir, "--quiet"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`${dir}: in use by another vertdup run \\(pid ${process.pid}@`));
    await held.release();
    expect((await vertdupAsync(["paragraphs", batch, "-o", missingPath("free.vert"), "--against", dir, "--quiet"])).status).toBe(0);
    expect(existsSync(join(dir, "vertdup.lock"))).toBe(false);
  });

  it("an index of another method, of other n-gram options, or no index at all, named", async () => {
    const dir = await base();
    const batch = writeVert(threeParts(8, 40)[1]);
    await expect(dedup([batch], { ngram: 5, boundary: "s" }, { against: [dir] })).rejects.toThrow(
      `${dir}: options incompatible with the index (--boundary: index "doc", this run "s"; --ngram: index 7, this run 5)`,
    );
    await expect(dedup([batch], { docTag: "text" }, { against: [dir] })).rejects.toThrow('--doc-tag: index "doc", this run "text"');
    const other = tempDir();
    await new IndexUpdate(other, newIndex("minhash", {}), ["x"], [null], 1).commit();
    await expect(dedup([batch], {}, { against: [other] })).rejects.toThrow(`${other}: an index of --method minhash, not paragraphs`);
    await expect(dedup([batch], {}, { against: [tempDir()] })).rejects.toThrow("not an index (no index.json");
    await expect(dedup([batch], {}, { against: [join(tempDir(), "missing.idx")], update: true })).rejects.toThrow("missing.idx: no such index");
    await expect(dedup([batch], { ngram: 5 }, { against: [dir], update: true })).rejects.toThrow("--ngram: index 7, this run 5");
    expect((await readIndex(dir)).batches.length).toBe(1);
  });

  it("an index of vertdup 0.2.0's key format 1 (its ranges file a bare list): refused, naming the file and the formats", async () => {
    const dir = await base();
    const ranges = join(dir, (await readIndex(dir)).files[rangesRole(1)]);
    writeFileSync(ranges, JSON.stringify((JSON.parse(readFileSync(ranges, "utf8")) as { ranges: unknown[] }).ranges));
    const batch = writeVert(threeParts(8, 40)[1]);
    const refusal = `${ranges}: n-gram keys of key format 1; this vertdup reads key format ${KEY_FORMAT}: build the index again`;
    await expect(dedup([batch], {}, { against: [dir] })).rejects.toThrow(refusal);
    await expect(dedup([batch], {}, { against: [dir], update: true })).rejects.toThrow(refusal);
    expect((await readIndex(dir)).batches.length).toBe(1);
  });

  it("the CLI: options passed on, refusals as vertdup: error", async () => {
    const dir = join(tempDir(), "cli.idx");
    const [a, b] = threeParts(9, 60).map((p) => writeVert(p));
    const out = missingPath("o.vert");
    expect(vertdup(["paragraphs", a, "-o", out, "-w", dir, "--quiet"]).status).toBe(0);
    const r = vertdup(["paragraphs", b, "-o", out, "--update", "--quiet"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("vertdup: error: --update appends to one index: give exactly one --against (none given)");
    const ok = vertdup(["paragraphs", b, "-o", out, "--against", dir, "--update", "--quiet"]);
    expect(ok.stderr).not.toContain("error");
    expect((await readIndex(dir)).batches.map((x) => x.inputs)).toEqual([[a], [b]]);
    const report = JSON.parse(readFileSync(`${out}.report.json`, "utf8")) as { against: string[] };
    expect(report.against).toEqual([dir]);
  });
});

describe("vertdup paragraphs --update: a kill leaves the old or the new index", () => {
  /** The manifest with its batches' dates blanked: two updates of the same batch differ only there. */
  const undated = (content: Map<string, Buffer>) =>
    new Map([...content].map(([name, bytes]) => [name, name === "index.json" ? bytes.toString().replace(/"created": "[^"]*"/g, '"created": ""') : bytes.toString("base64")]));

  it("SIGKILL after the keys are written, before the commit, and between the commit and the clean-up", async () => {
    const [a, b, c] = threeParts(10, 120).map((p) => writeVert(p));
    const base = join(tempDir(), "base.idx");
    const out = missingPath("o.vert");
    expect((await vertdupAsync(["paragraphs", a, "-o", out, "-w", base, "--quiet"])).status).toBe(0);
    const old = await indexContent(base);
    const clean = join(tempDir(), "clean.idx");
    cpSync(base, clean, { recursive: true });
    expect((await vertdupAsync(["paragraphs", b, "-o", out, "--against", clean, "--update", "--quiet"])).status).toBe(0);
    const updated = undated(await indexContent(clean));
    const afterB = await dedup([c], {}, { against: [clean] });

    const states: string[] = [];
    for (const point of ["paragraphs-keys-written", "paragraphs-before-commit", "index:after-commit"]) {
      const dir = join(tempDir(), "killed.idx");
      cpSync(base, dir, { recursive: true });
      process.env.VERTDUP_FAULT = `kill:${point}`;
      const killed = await vertdupAsync(["paragraphs", b, "-o", missingPath("k.vert"), "--against", dir, "--update", "--quiet"]).finally(() => delete process.env.VERTDUP_FAULT);
      expect(killed.status).toBe(null);
      const now = await indexContent(dir);
      const same = [...now].every(([k, v]) => old.get(k)?.equals(v)) && now.size === old.size;
      states.push(same ? "old" : "new");
      if (!same) expect(undated(now)).toEqual(updated);
      // The next update completes (the dead process's lock and files are no obstacle) and counts right.
      if (same) expect((await vertdupAsync(["paragraphs", b, "-o", missingPath("k.vert"), "--against", dir, "--update", "--quiet"])).status).toBe(0);
      expect(undated(await indexContent(dir))).toEqual(updated);
      expect(await dedup([c], {}, { against: [dir] })).toBe(afterB);
    }
    expect(states).toEqual(["old", "old", "new"]);
  });
});
