import { type Chunk, emptyWarnings, parseChunk, type ReaderWarnings, type VerticalDoc } from "../../src/corpus/vertical.js";
import type { ReaderOptions } from "../../src/core/options.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { compress } from "zstd-napi";
import { chunkCorpus } from "../../src/corpus/chunker.js";

export type VertKind = "plain" | "gz" | "zst";

const dirs: string[] = [];
let counter = 0;

function tempDir(): string {
  if (dirs.length === 0) dirs.push(mkdtempSync(join(tmpdir(), "vertdup-test-")));
  return dirs[0];
}

/** Suffix of a corpus file of the given kind. */
export function suffixOf(kind: VertKind): string {
  return kind === "plain" ? ".vert" : kind === "gz" ? ".vert.gz" : ".vert.zst";
}

/** Compresses (or not) the bytes of a corpus as a file of the given kind would hold them. */
export function encode(content: string | Buffer, kind: VertKind): Buffer {
  const raw = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  if (kind === "gz") return gzipSync(raw);
  if (kind === "zst") return compress(raw);
  return raw;
}

/** Writes a temporary .vert / .vert.gz / .vert.zst file and returns its path. */
export function writeVert(content: string | Buffer, kind: VertKind = "plain", name?: string): string {
  const path = join(tempDir(), `${name ?? `corpus-${++counter}`}${suffixOf(kind)}`);
  writeFileSync(path, encode(content, kind));
  return path;
}

/** Writes raw bytes (e.g. a truncated compressed stream) under a chosen file name. */
export function writeRaw(bytes: Buffer, fileName: string): string {
  const path = join(tempDir(), `${++counter}-${fileName}`);
  writeFileSync(path, bytes);
  return path;
}

/** A path inside the temporary directory that does not exist. */
export function missingPath(fileName = "missing.vert"): string {
  return join(tempDir(), `absent-${++counter}-${fileName}`);
}

/** Removes every temporary file written by this module (call in afterAll). */
export function cleanupVerts(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export async function collectChunks(inputs: readonly string[], targetBytes: number): Promise<Chunk[]> {
  const out: Chunk[] = [];
  for await (const c of chunkCorpus(inputs, targetBytes)) out.push(c);
  return out;
}

export interface ReadResult {
  docs: VerticalDoc[];
  warnings: ReaderWarnings;
  chunks: Chunk[];
}

/** Chunks and parses the inputs, in order, as the preparatory phase does. */
export async function readCorpus(
  inputs: readonly string[],
  targetBytes = 1 << 20,
  opts: Partial<ReaderOptions> = {},
): Promise<ReadResult> {
  const full: ReaderOptions = { column: 0, idAttr: "id", ...opts };
  const warnings = emptyWarnings();
  const docs: VerticalDoc[] = [];
  const chunks = await collectChunks(inputs, targetBytes);
  for (const c of chunks) parseChunk(c, full, warnings, (d) => docs.push(d));
  return { docs, warnings, chunks };
}

/** Small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["praha", "Brno", "žluťoučký", "kůň", "Москва", "the", "a", "42", ",", ".", "<", "<3", "dom", "ěšč"];

/**
 * A synthetic, well-formed vertical corpus of `docs` documents with 3 columns
 * (word, tag, lemma), paragraphs, sentences, heads and glue. Deterministic in `seed`.
 */
export function makeCorpus(docs: number, seed = 1, idPrefix = "d"): string {
  const r = rng(seed);
  const lines: string[] = [];
  for (let d = 0; d < docs; d++) {
    lines.push(`<doc id="${idPrefix}${d}" title="t ${d}">`);
    if (r() < 0.3) lines.push("<head>", `Title${d}\tNN\ttitle${d}`, "</head>");
    const paras = 1 + Math.floor(r() * 3);
    for (let p = 0; p < paras; p++) {
      lines.push("<p>", "<s>");
      const n = 1 + Math.floor(r() * 12);
      for (let t = 0; t < n; t++) {
        const w = WORDS[Math.floor(r() * WORDS.length)];
        lines.push(`${w}\tT${t % 3}\t${w.toLowerCase()}_l`);
        if (r() < 0.1) lines.push("<g/>");
      }
      lines.push("</s>", "</p>");
    }
    lines.push("</doc>");
  }
  return lines.join("\n") + "\n";
}
