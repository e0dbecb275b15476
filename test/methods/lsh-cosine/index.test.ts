import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { storeFiles } from "../../../src/workdir/layout.js";
import { tokenHashes } from "../../../src/features/terms.js";
import { signatureOfDocument } from "../../../src/output/pairs.js";
import { loadSignatureStore } from "../../../src/runs/signature-store.js";
import { termVector } from "../../../src/sketch/random-vectors.js";
import { accumulate, signBits } from "../../../src/sketch/signature.js";
import { indexContent, IndexUpdate, newIndex, readIndex } from "../../../src/workdir/index-store.js";
import { removeTempDirs, tempDir, vertdup, vertdupAsync } from "../../helpers/cli.js";
import { rng } from "../../helpers/vert.js";

afterAll(removeTempDirs);

/** A batch of documents as words, each `id` unique over all batches. */
interface Doc {
  id: string;
  words: string[];
}

/**
 * Documents of 30–70 words, 70 % from a 400-word vocabulary and 30 % from 300 words of the
 * batch's own (terms an index first sees in this batch); about a third are near copies (two
 * words changed) of an earlier document of `earlier` or of the batch itself, so that copies
 * join old and new documents, new ones among themselves, and old ones (through new ones).
 */
function batch(r: () => number, prefix: string, n: number, earlier: readonly Doc[]): Doc[] {
  const word = () => (r() < 0.3 ? `${prefix}q${Math.floor(r() * 300).toString(36)}` : `w${Math.floor(r() * 400).toString(36)}x`);
  const out: Doc[] = [];
  for (let k = 0; k < n; k++) {
    const pool = [...earlier, ...out];
    let words: string[];
    if (pool.length > 0 && r() < 0.35) {
      words = [...pool[Math.floor(r() * pool.length)].words];
      for (let e = 0; e < 2; e++) words[Math.floor(r() * words.length)] = word();
    } else words = Array.from({ length: 30 + Math.floor(r() * 41) }, word);
    out.push({ id: `${prefix}${k}`, words });
  }
  return out;
}

function vert(docs: readonly Doc[]): string {
  return docs.map((d) => `<doc id="${d.id}">\n<p>\n<s>\n${d.words.join("\n")}\n</s>\n</p>\n</doc>\n`).join("");
}

function write(dir: string, name: string, docs: readonly Doc[]): string {
  const path = join(dir, name);
  writeFileSync(path, vert(docs));
  return path;
}

async function run(args: string[]): Promise<void> {
  const r = await vertdupAsync(["run", ...args, "--quiet", "--no-report"]);
  if (r.status !== 0) throw new Error(`vertdup run ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
}

/** Rows of a TSV file as records keyed by its header. */
function tsv(path: string): Record<string, string>[] {
  const [header, ...lines] = readFileSync(path, "utf8").trimEnd().split("\n");
  const names = header.split("\t");
  return lines.filter((l) => l.length > 0).map((l) => Object.fromEntries(l.split("\t").map((v, i) => [names[i], v])));
}

/**
 * The clusters of an output directory that contain a document of `fresh`, and their edges: a
 * form independent of cluster numbers, ordinals and of whether the run listed the other
 * clusters too (with --against, only these are written).
 */
function withNew(outdir: string, fresh: ReadonlySet<string>): { clusters: string[]; edges: string[] } {
  const rows = tsv(join(outdir, "clusters.tsv"));
  const members = new Map<string, Record<string, string>[]>();
  for (const row of rows) members.set(row.cluster, [...(members.get(row.cluster) ?? []), row]);
  const kept = [...members.values()].filter((m) => m.some((row) => fresh.has(row.doc)));
  const inKept = new Set(kept.flatMap((m) => m.map((row) => row.doc)));
  const clusters = kept.map((m) => m.map((row) => [row.doc, row.representative, row.dup_of, row.similarity].join(" ")).sort().join(", ")).sort();
  const edges = tsv(join(outdir, "pairs.tsv"))
    .filter((p) => inKept.has(p.doc_a) || inKept.has(p.doc_b))
    .map((p) => [p.doc_a, p.doc_b, p.similarity, p.cosine].join(" "))
    .sort();
  return { clusters, edges };
}

function storeBytes(files: { signatures: string; offsets: string; docs: string }): Buffer[] {
  return [files.signatures, files.offsets, files.docs].map((f) => readFileSync(f));
}

async function indexStore(dir: string): Promise<Buffer[]> {
  const m = await readIndex(dir);
  return storeBytes({ signatures: join(dir, m.files.signatures), offsets: join(dir, m.files.offsets), docs: join(dir, m.files.docs) });
}

describe("lsh-cosine index: --against and --update with --weighting tf", () => {
  const r = rng(15);
  const base = batch(r, "b", 120, []);
  const one = batch(r, "x", 50, base);
  const two = batch(r, "y", 50, [...base, ...one]);
  const common = ["--weighting", "tf", "--iterations", "20", "--chunk-size", "4096"];

  for (const workers of ["1", "2"]) {
    it(`base + batch 1 + batch 2 (--update, --against-scan full) equals one run over the concatenation, restricted to clusters with a new document (--workers ${workers})`, async () => {
      const dir = tempDir();
      const opts = [...common, "--workers", workers];
      const [b, x, y] = [write(dir, "base.vert", base), write(dir, "one.vert", one), write(dir, "two.vert", two)];
      const upToOne = write(dir, "base-one.vert", [...base, ...one]);
      const all = write(dir, "all.vert", [...base, ...one, ...two]);
      const index = join(dir, "index");
      await run([b, "-w", index, "-o", join(dir, "o0"), ...opts]);
      await run([x, "-w", join(dir, "w1"), "-o", join(dir, "o1"), "--against", index, "--update", "--against-scan", "full", ...opts]);
      await run([upToOne, "-w", join(dir, "c1"), "-o", join(dir, "oc1"), "--keep", "first", ...opts]);
      await run([y, "-w", join(dir, "w2"), "-o", join(dir, "o2"), "--against", index, "--update", "--against-scan", "full", ...opts]);
      await run([all, "-w", join(dir, "c2"), "-o", join(dir, "oc2"), "--keep", "first", ...opts]);

      // The combined store is the concatenated run's, byte for byte, and so is the updated index's.
      expect(storeBytes(storeFiles(join(dir, "w1")))).toEqual(storeBytes(storeFiles(join(dir, "c1"))));
      expect(storeBytes(storeFiles(join(dir, "w2")))).toEqual(storeBytes(storeFiles(join(dir, "c2"))));
      expect(await indexStore(index)).toEqual(storeBytes(storeFiles(join(dir, "c2"))));
      const manifest = await readIndex(index);
      // Batch 2 is verified against batch 1's documents, whose own terms only `added-terms` lists.
      expect(manifest.files["added-terms"]).toBeDefined();
      expect(manifest.batches.map((bt) => [bt.firstOrdinal, bt.documents])).toEqual([[0, 120], [120, 50], [170, 50]]);

      const fresh1 = new Set(one.map((d) => d.id));
      const fresh2 = new Set(two.map((d) => d.id));
      const got1 = withNew(join(dir, "o1"), fresh1);
      const got2 = withNew(join(dir, "o2"), fresh2);
      expect(got1).toEqual(withNew(join(dir, "oc1"), fresh1));
      expect(got2).toEqual(withNew(join(dir, "oc2"), fresh2));
      // The corpus has copies across batches: clusters joining old and new documents.
      const oldInClusters = (g: { clusters: string[] }, old: (id: string) => boolean) => g.clusters.filter((c) => c.split(", ").some((m) => old(m.split(" ")[0]))).length;
      expect(oldInClusters(got2, (id) => !fresh2.has(id))).toBeGreaterThan(0);
      expect(got2.edges.length).toBeGreaterThan(0);
    }, 180_000);
  }
});

/** Lines of pairs.tsv with a document of `fresh`, as "doc_a doc_b similarity cosine", sorted. */
function pairsWithNew(outdir: string, fresh: ReadonlySet<string>): string[] {
  return tsv(join(outdir, "pairs.tsv"))
    .filter((p) => fresh.has(p.doc_a) || fresh.has(p.doc_b))
    .map((p) => [p.doc_a, p.doc_b, p.similarity, p.cosine].join(" "))
    .sort();
}

/** Members of each cluster of clusters.tsv holding a document of `fresh`. */
function clustersWithNew(outdir: string, fresh: ReadonlySet<string>): Set<string>[] {
  const members = new Map<string, Set<string>>();
  for (const row of tsv(join(outdir, "clusters.tsv"))) members.set(row.cluster, (members.get(row.cluster) ?? new Set()).add(row.doc));
  return [...members.values()].filter((m) => [...m].some((d) => fresh.has(d)));
}

describe("lsh-cosine index: --against-scan new", () => {
  const r = rng(16);
  const signed = batch(r, "b", 120, []);
  const one = batch(r, "x", 50, signed);
  const two = batch(r, "y", 50, [...signed, ...one]);
  // An empty document has an ordinal but no signature: ordinals outrun the signed documents.
  const base = [{ id: "empty", words: [] }, ...signed];
  // A narrow beam: new signatures often fall between old pairs and push them out of it.
  const common = ["--weighting", "tf", "--iterations", "20", "--beam", "3", "--chunk-size", "4096", "--pairs", "all"];

  for (const workers of ["1", "2"]) {
    it(`finds exactly the concatenated run's pairs with a new document; its clusters hold the concatenated run's (--workers ${workers})`, async () => {
      const dir = tempDir();
      const opts = [...common, "--workers", workers];
      const [b, x, y] = [write(dir, "base.vert", base), write(dir, "one.vert", one), write(dir, "two.vert", two)];
      const index = join(dir, "index");
      await run([b, "-w", index, "-o", join(dir, "o0"), ...opts]);
      await run([x, "-w", join(dir, "w1"), "-o", join(dir, "o1"), "--against", index, "--update", ...opts]);
      await run([write(dir, "base-one.vert", [...base, ...one]), "-w", join(dir, "c1"), "-o", join(dir, "oc1"), "--keep", "first", ...opts]);
      await run([y, "-w", join(dir, "w2"), "-o", join(dir, "o2"), "--against", index, "--update", ...opts]);
      await run([write(dir, "all.vert", [...base, ...one, ...two]), "-w", join(dir, "c2"), "-o", join(dir, "oc2"), "--keep", "first", ...opts]);

      expect((await readIndex(index)).files.links).toBeDefined();
      for (const [out, concatenated, docs] of [["o1", "oc1", one], ["o2", "oc2", two]] as const) {
        expect(JSON.parse(readFileSync(join(dir, out, "manifest.json"), "utf8")).againstScan).toBe("new");
        const fresh = new Set(docs.map((d) => d.id));
        const pairs = pairsWithNew(join(dir, out), fresh);
        expect(pairs.length).toBeGreaterThan(0);
        expect(pairs).toEqual(pairsWithNew(join(dir, concatenated), fresh));
        // The index's links only add old pairs: each concatenated cluster lies within one of this run's.
        const got = clustersWithNew(join(dir, out), fresh);
        for (const cluster of clustersWithNew(join(dir, concatenated), fresh)) {
          expect(got.filter((g) => [...cluster].every((d) => g.has(d)))).toHaveLength(1);
        }
      }
    }, 180_000);
  }

  it("merges the batch's keys into the keys the index stored, and its --update's: the same outputs, byte for byte, as sorting the keys of all signatures (an index without them)", async () => {
    const dir = tempDir();
    const opts = [...common, "--workers", "2"];
    const index = join(dir, "index");
    await run([write(dir, "base.vert", base), "-w", index, "-o", join(dir, "o0"), ...opts]);
    const keyRoles = async (at: string) => Object.keys((await readIndex(at)).files).filter((role) => role.startsWith("sort-keys-"));
    expect(await keyRoles(index)).toHaveLength(20);
    // An index as older versions left it: no sorted keys.
    const plain = join(dir, "plain");
    cpSync(index, plain, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(plain, "index.json"), "utf8")) as { files: Record<string, string> };
    for (const role of await keyRoles(plain)) delete manifest.files[role];
    writeFileSync(join(plain, "index.json"), JSON.stringify(manifest));
    const x = write(dir, "one.vert", one);
    const y = write(dir, "two.vert", two);
    for (const [at, name] of [[index, "k"], [plain, "p"]]) {
      await run([x, "-w", join(dir, `w1${name}`), "-o", join(dir, `o1${name}`), "--against", at, "--update", ...opts]);
      await run([y, "-w", join(dir, `w2${name}`), "-o", join(dir, `o2${name}`), "--against", at, ...opts]);
    }
    // --update leaves the merged store's keys, also where the index had none.
    expect(await keyRoles(index)).toHaveLength(20);
    expect(await keyRoles(plain)).toHaveLength(20);
    for (const out of ["o1", "o2"]) {
      expect(JSON.parse(readFileSync(join(dir, `${out}k`, "manifest.json"), "utf8")).againstScan).toBe("new");
      // The outputs name each old document's index as given: the two indices differ in that only.
      for (const file of ["clusters.tsv", "pairs.tsv"]) expect(readFileSync(join(dir, `${out}k`, file), "utf8")).toBe(readFileSync(join(dir, `${out}p`, file), "utf8").replaceAll(plain, index));
    }
    const keysOf = async (at: string) => Promise.all((await keyRoles(at)).sort().map(async (role) => readFileSync(join(at, (await readIndex(at)).files[role]))));
    expect(await keysOf(index)).toEqual(await keysOf(plain));
  }, 180_000);

  it("with two indices, counts the second's documents as new: the same pairs with a new document as --against-scan full", async () => {
    const dir = tempDir();
    const opts = [...common, "--workers", "2"];
    const [first, second] = [join(dir, "first"), join(dir, "second")];
    await run([write(dir, "base.vert", base), "-w", first, "-o", join(dir, "o0"), ...opts]);
    await run([write(dir, "one.vert", one), "-w", second, "-o", join(dir, "o1"), ...opts]);
    const y = write(dir, "two.vert", two);
    for (const scan of ["new", "full"]) await run([y, "-o", join(dir, scan), "--against", first, "--against", second, "--against-scan", scan, ...opts]);
    const fresh = new Set(two.map((d) => d.id));
    expect(JSON.parse(readFileSync(join(dir, "new", "manifest.json"), "utf8")).againstScan).toBe("new");
    const pairs = pairsWithNew(join(dir, "new"), fresh);
    expect(pairs.some((p) => one.some((d) => p.split(" ").includes(d.id)))).toBe(true);
    expect(pairs).toEqual(pairsWithNew(join(dir, "full"), fresh));
  }, 120_000);

  it("searches the whole store, with a warning, when the index has no links of the same search", async () => {
    const dir = tempDir();
    const index = join(dir, "index");
    await run([write(dir, "base.vert", base), "-w", index, "-o", join(dir, "o0"), ...common, "--workers", "1"]);
    // The index's links are of beam 3; this batch searches with beam 4.
    const r2 = await vertdupAsync(["run", write(dir, "one.vert", one), "-o", join(dir, "o1"), "--against", index, ...common.map((o) => (o === "3" ? "4" : o)), "--workers", "1", "--no-report"]);
    expect(r2.status).toBe(0);
    expect(r2.stderr).toMatch(/has no links of a search with these options .*: searching the whole combined store, as --against-scan full/);
    expect(JSON.parse(readFileSync(join(dir, "o1", "manifest.json"), "utf8")).againstScan).toBe("full");
  }, 60_000);
});

describe("lsh-cosine index: tf-idf weights frozen at the base", () => {
  it("signs a batch with the base's idf ln(N0/df0), and ln(N0) for terms the base never saw (brute force)", async () => {
    const dir = tempDir();
    const r = rng(7);
    const base = batch(r, "b", 25, []);
    const fresh = batch(r, "n", 10, base).map((d, k) => (k % 2 === 0 ? { ...d, words: [...d.words, `zz${k}q`, `zz${k}q`] } : d));
    const index = join(dir, "index");
    const common = ["--iterations", "2", "--projection", "float32", "--workers", "1"];
    await run([write(dir, "base.vert", base), "-w", index, "-o", join(dir, "o0"), ...common]);
    await run([write(dir, "new.vert", fresh), "-w", join(dir, "w1"), "-o", join(dir, "o1"), "--against", index, ...common]);

    const opts = { normalize: "nfc" as const, lowercase: true, keepNumbers: false, column: 0 };
    const df = new Map<number, number>();
    for (const d of base) for (const t of new Set(tokenHashes(d.words, opts))) df.set(t, (df.get(t) ?? 0) + 1);
    const n0 = base.length;
    const store = loadSignatureStore(join(dir, "w1"), 1024);
    const sigOf = signatureOfDocument(store, base.length + fresh.length);
    const v = new Float32Array(1024);
    fresh.forEach((d, k) => {
      const tf = new Map<number, number>();
      for (const t of tokenHashes(d.words, opts)) tf.set(t, (tf.get(t) ?? 0) + 1);
      const acc = new Float64Array(1024);
      for (const [t, count] of tf) {
        const weight = count * Math.log(n0 / (df.get(t) ?? 1));
        if (weight === 0) continue;
        termVector(1, t, v);
        accumulate(acc, v, weight);
      }
      const expected = new Uint32Array(32);
      signBits(acc, expected, 0);
      const i = sigOf[base.length + k];
      expect(store.signatures.slice(i * 32, (i + 1) * 32)).toEqual(expected);
    });
  }, 60_000);
});

describe("lsh-cosine index: refusals", () => {
  const dir = tempDir();
  const corpus = write(dir, "c.vert", batch(rng(3), "c", 12, []));
  const index = join(dir, "index");

  it("a completed run -w leaves an index of lsh-cosine with the signature options", async () => {
    await run([corpus, "-w", index, "-o", join(dir, "o"), "--iterations", "2", "--workers", "1"]);
    const m = await readIndex(index);
    expect(m.method).toBe("lsh-cosine");
    expect(m.options).toMatchObject({ "--bits": 1024, "--weighting": "tfidf", "--projection": "int8", "projection-format": 2, "--shingle-size": 1, "--max-df": "none" });
    expect(Object.keys(m.files)).toEqual(expect.arrayContaining(["vocabulary", "signatures", "offsets", "docs", "shard-000000-counts", "shard-000000-docs"]));
  }, 60_000);

  const refused = (args: string[], message: RegExp) => {
    const r = vertdup(["run", corpus, "-o", join(dir, "out"), "--iterations", "2", "--workers", "1", ...args]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(message);
  };

  it("refuses --update without one --against, --resume, the index as -w, other options, df limits", async () => {
    const other = join(dir, "other");
    mkdirSync(other);
    const minhash = new IndexUpdate(other, newIndex("minhash", {}), ["x"], [null], 1);
    await minhash.commit();
    refused(["--update"], /--update appends to one index: give exactly one --against \(none given\)/);
    refused(["--update", "--against", index, "--against", join(dir, "o")], /--update appends to one index: give exactly one --against \(2 given\)/);
    refused(["--against", index, "--resume", "-w", join(dir, "w")], /--resume cannot continue a run with --against/);
    refused(["--against", index, "-w", index], /the --against index is also the run's work directory/);
    refused(["--against", index, "--bits", "128"], /options incompatible with the index \(--bits: index 1024, this run 128\)/);
    refused(["--against", index, "--min-df", "2"], /--min-df and --max-df cannot be used with --against/);
    refused(["--against", index, "--against", join(dir, "o")], /--weighting tfidf compares with one index only/);
    refused(["--against", index, "--against", `${index}/`, "--weighting", "tf"], /the index is given twice/);
    refused(["--against", other], /an index of --method minhash, not lsh-cosine/);
    refused(["--against", join(dir, "o")], /not an index/);
    // An index of vertdup 0.3.0's int8 vectors: no projection-format among its options.
    const old = join(dir, "old");
    cpSync(index, old, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(old, "index.json"), "utf8"));
    delete manifest.options["projection-format"];
    writeFileSync(join(old, "index.json"), JSON.stringify(manifest));
    refused(["--against", old], /the index's int8 vectors are vertdup 0.3.0's quantised polar Gaussians, this version's drawn from the quantised Gaussian, format 2: their signatures do not mix; build a new index/);
    // The index's own corpus again: its bytes are the base's.
    refused(["--against", index, "--update"], new RegExp(`c.vert has the same bytes as .*c.vert, batch 0 of ${index} \\(added [^)]*\\): refusing to append it again`));
    expect((await readIndex(index)).batches).toHaveLength(1);
  }, 60_000);
});

describe("lsh-cosine index: --update survives SIGKILL", () => {
  it("leaves the old index or the new one, byte for byte, whatever point it is killed at", async () => {
    const dir = tempDir();
    const r = rng(11);
    const base = batch(r, "b", 40, []);
    const index = join(dir, "index");
    const common = ["--iterations", "2", "--workers", "1", "--chunk-size", "4096"];
    await run([write(dir, "base.vert", base), "-w", index, "-o", join(dir, "o0"), ...common]);
    const input = write(dir, "new.vert", batch(r, "n", 20, base));
    const old = await indexContent(index);
    const update = (target: string, fault?: string) => {
      const env = fault === undefined ? {} : { VERTDUP_FAULT: `kill:${fault}` };
      const args = ["run", input, "-w", join(dir, `w-${fault ?? "ok"}`), "-o", join(dir, `o-${fault ?? "ok"}`), "--against", target, "--update", ...common, "--quiet", "--no-report"];
      return spawnSync(process.execPath, [join("dist", "src", "cli.js"), ...args], { env: { ...process.env, ...env }, encoding: "utf8" });
    };
    const reference = join(dir, "reference");
    cpSync(index, reference, { recursive: true });
    expect((update(reference)).status).toBe(0);
    // The manifest of the new index differs from another update's only by the batch's date.
    const undated = (content: Map<string, Buffer>) => [...content].map(([k, v]) => [k, k === "index.json" ? v.toString().replace(/"created": "[^"]*"/g, "") : v.toString("base64")]);
    const fresh = undated(await indexContent(reference));
    expect(fresh).not.toEqual(undated(old));
    for (const point of ["update-start", "update-file", "update-files", "index:after-commit"]) {
      const target = join(dir, `index-${point}`);
      cpSync(index, target, { recursive: true });
      const killed = update(target, point);
      expect(killed.signal).toBe("SIGKILL");
      const after = await indexContent(target);
      if (point === "index:after-commit") {
        expect(undated(after)).toEqual(fresh);
        continue;
      }
      expect(after).toEqual(old);
      // The update run again completes on what the crash left.
      expect((update(target)).status).toBe(0);
      expect(undated(await indexContent(target))).toEqual(fresh);
    }
    // Resuming the base run in an index that a batch was appended to keeps the batch.
    await run([join(dir, "base.vert"), "-w", reference, "-o", join(dir, "o-resumed"), "--resume", ...common]);
    expect(undated(await indexContent(reference))).toEqual(fresh);
  }, 180_000);
});
