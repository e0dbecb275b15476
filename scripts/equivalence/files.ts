/** Comparing the two builds' files, and seeing which files of a directory a command rewrote. */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { Case } from "./cases.js";
import { normalized } from "./normalize.js";

/** Every file under `path` (itself when it is a file), relative to `root`, sorted. */
export function filesUnder(root: string, path = root): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [relative(root, path)];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(root, join(path, name)));
}

/**
 * The files of a case's `compare` and `indices` that differ between the two builds' directories,
 * or exist in one only. `absolutePaths`: the current build's files may name files of its case
 * directory by absolute path (Slurm jobs do: `slurm paragraphs`' report names its output so);
 * that directory's prefix is dropped from them before they are compared.
 */
export function differingFiles(baseDir: string, currentDir: string, c: Pick<Case, "compare" | "indices">, absolutePaths = false): string[] {
  const base = comparedFiles(baseDir, c);
  const current = comparedFiles(currentDir, c);
  const missing = c.compare.filter((path) => !existsSync(join(baseDir, path)) && !existsSync(join(currentDir, path)));
  const differing = missing.map((path) => `${path} (missing in both)`);
  for (const file of new Set([...base, ...current])) {
    if (!base.includes(file)) differing.push(`${file} (current only)`);
    else if (!current.includes(file)) differing.push(`${file} (baseline only)`);
    else if (!sameFile(file, readFileSync(join(baseDir, file)), currentFile(join(currentDir, file), absolutePaths ? `${currentDir}/` : null))) differing.push(file);
  }
  return differing;
}

function comparedFiles(dir: string, c: Pick<Case, "compare" | "indices">): string[] {
  return [...c.compare.flatMap((path) => filesUnder(dir, join(dir, path))), ...(c.indices ?? []).flatMap((index) => indexFiles(dir, index))];
}

/** An index's index.json and the files it lists (README "Supplementing a corpus"), relative to `dir`. */
function indexFiles(dir: string, index: string): string[] {
  const json = join(dir, index, "index.json");
  if (!existsSync(json)) return [];
  const listed = Object.values((JSON.parse(readFileSync(json, "utf8")) as { files: Record<string, string> }).files);
  return [join(index, "index.json"), ...listed.map((file) => join(index, file))];
}

/** The file's bytes, without `prefix` wherever it occurs (a byte-preserving latin1 round trip). */
function currentFile(path: string, prefix: string | null): Buffer {
  const bytes = readFileSync(path);
  return prefix === null ? bytes : Buffer.from(bytes.toString("latin1").replaceAll(Buffer.from(prefix).toString("latin1"), ""), "latin1");
}

function sameFile(name: string, x: Buffer, y: Buffer): boolean {
  if (x.equals(y)) return true;
  const nx = normalized(name, x);
  return nx !== null && nx === normalized(name, y);
}

/** Per file: its inode and modification time (ns), and its SHA-256. */
export type Snapshot = Map<string, { stat: string; sha256: string }>;

export function snapshot(dir: string): Snapshot {
  return new Map(
    filesUnder(dir).map((file) => {
      const path = join(dir, file);
      const st = statSync(path, { bigint: true });
      return [file, { stat: `${st.ino} ${st.mtimeNs}`, sha256: createHash("sha256").update(readFileSync(path)).digest("hex") }];
    }),
  );
}

/**
 * Files written again (same bytes), changed, added or removed between two snapshots, e.g.
 * `index.json`, `links.zst (changed)`, `methods/000003.sets (added)`.
 */
export function touchedFiles(before: Snapshot, after: Snapshot): string[] {
  const touched: string[] = [];
  for (const [file, now] of after) {
    const was = before.get(file);
    if (was === undefined) touched.push(`${file} (added)`);
    else if (was.sha256 !== now.sha256) touched.push(`${file} (changed)`);
    else if (was.stat !== now.stat) touched.push(file);
  }
  for (const file of before.keys()) if (!after.has(file)) touched.push(`${file} (removed)`);
  return touched;
}

/** A long list of files shortened by their shape (digit runs, but the extension's, as N): `methods/N.extract.f64 ×66`. */
export function summarizeFiles(files: string[], shown = 12): string {
  const byShape = new Map<string, string[]>();
  for (const f of files) {
    const shape = f.replace(/\d+(?=.*\.)/g, "N");
    const group = byShape.get(shape) ?? [];
    group.push(f);
    byShape.set(shape, group);
  }
  const list = [...byShape].map(([shape, fs]) => (fs.length === 1 ? fs[0] : `${shape} ×${fs.length}`));
  return list.length <= shown ? list.join(", ") : `${list.slice(0, shown).join(", ")} … (${list.length - shown} more)`;
}
