import { existsSync, realpathSync } from "node:fs";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { writeAtomic } from "../util/atomic.js";
import { VertdupError } from "../core/errors.js";
import { killPoint } from "../util/kill-point.js";
import { packageVersion } from "../util/package-info.js";

/**
 * A saved index: what a run kept of its corpus so that later batches can be compared with it
 * (`--against`) and appended to it (`--update`). The index is a work directory holding
 * `index.json` — the manifest, and the index's only commit point — and the data files it
 * lists, which are never rewritten in place: an update writes its files under new names in a
 * new generation folder, then replaces index.json atomically, then removes the files no
 * longer listed. A crash before the rename leaves the old index (plus unlisted files, which
 * are not part of it and go at the next update); a crash after it leaves the new one.
 */
export const INDEX_MANIFEST = "index.json";
/** Folder of the data files that updates write, one sub-folder per generation. */
export const INDEX_DATA = "index";
const FORMAT = 1;

/** One batch of documents that went into the index: the base is batch 0. */
export interface IndexBatch {
  batch: number;
  /** When the batch was added (ISO 8601). */
  created: string;
  /** The inputs as given on the command line. */
  inputs: string[];
  /**
   * Per input, its absolute path, size and SHA-256 (null for standard input): an --update
   * with the same bytes again is refused. Absent in indices made before it was recorded.
   */
  digests?: (InputDigest | null)[];
  /** Documents the batch added, and the index ordinal of its first one (ordinals run over all batches in order). */
  documents: number;
  firstOrdinal: number;
  /** vertdup version that added it. */
  version: string;
}

export interface IndexManifest {
  format: typeof FORMAT;
  /** The method whose features the index holds (`lsh-cosine`, `minhash`, …, or `paragraphs` for `vertdup paragraphs`). */
  method: string;
  /**
   * The options that decide the features, by their command-line name (`--shingle-size`): a
   * batch must give the same values. Options that only change the search (thresholds) are not here.
   */
  options: Record<string, unknown>;
  /** Documents in all batches. */
  documents: number;
  batches: IndexBatch[];
  /** Data files by role (the method names the roles), as paths relative to the index. */
  files: Record<string, string>;
  /** Number of the generation folder the next update writes to. */
  generation: number;
}

/** How a run uses its `--against` indices: the options every command checks the same way. */
export interface AgainstUse {
  update: boolean;
  resume?: boolean;
  /** The run's own work directory (-w), if given. */
  workdir?: string;
}

function samePlace(a: string, b: string): boolean {
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p));
  return real(a) === real(b);
}

/**
 * The refusals every command with `--against` shares, before any work: `--update` without
 * exactly one index, an index named twice, `--resume` (only the batch is read: run it again),
 * an index that is also the run's work directory (which the run clears).
 */
export function checkAgainstUse(against: readonly string[], use: AgainstUse): void {
  if (use.update && against.length !== 1) {
    throw new VertdupError(`--update appends to one index: give exactly one --against (${against.length === 0 ? "none" : against.length} given)`);
  }
  const twice = against.find((dir, k) => against.findIndex((other) => samePlace(other, dir)) !== k);
  if (twice !== undefined) throw new VertdupError(`${twice}: the index is given twice with --against`);
  if (use.resume === true && against.length > 0) throw new VertdupError("--resume cannot continue a run with --against: run the batch again (only its own documents are read)");
  // A run that writes an index (--update, or -w) dates its batch: a bad date is refused before any work.
  if (use.update || use.workdir !== undefined) batchDate();
  const own = use.workdir === undefined ? undefined : against.find((dir) => samePlace(dir, use.workdir as string));
  if (own !== undefined) throw new VertdupError(`${own}: the --against index is also the run's work directory (-w), which the run clears: give another -w (--update appends the batch to the index)`);
}

/**
 * The date of a new index batch: now, or SOURCE_DATE_EPOCH (seconds), the reproducible-builds
 * convention, with which two identical updates give byte-identical indices (the crash test
 * compares them). A value that is not a date is refused, naming the variable.
 */
export function batchDate(): Date {
  const epoch = process.env.SOURCE_DATE_EPOCH;
  if (epoch === undefined) return new Date();
  const date = new Date(1000 * Number(epoch));
  if (!/^\d+$/.test(epoch) || Number.isNaN(date.getTime())) {
    throw new VertdupError(`SOURCE_DATE_EPOCH=${JSON.stringify(epoch)}: not a date (it must be the seconds since 1970-01-01 UTC, e.g. 1700000000): set it so or unset it`);
  }
  return date;
}

/** Reads an index's manifest, or says clearly why `dir` is not an index. */
export async function readIndex(dir: string): Promise<IndexManifest> {
  const path = join(dir, INDEX_MANIFEST);
  if (!existsSync(dir)) throw new VertdupError(`${dir}: no such index`);
  if (!existsSync(path)) throw new VertdupError(`${dir}: not an index (no ${INDEX_MANIFEST}; a run's work directory becomes an index when the run completes)`);
  let manifest: IndexManifest;
  try {
    manifest = JSON.parse(await readFile(path, "utf8")) as IndexManifest;
  } catch (err) {
    throw new VertdupError(`${path}: unreadable index manifest (${(err as Error).message})`);
  }
  if (manifest.format !== FORMAT) throw new VertdupError(`${path}: index format ${String(manifest.format)}, this vertdup reads format ${FORMAT}`);
  for (const file of Object.values(manifest.files)) {
    if (!existsSync(join(dir, file))) throw new VertdupError(`${dir}: index file ${file} is missing`);
  }
  return manifest;
}

/** What an index made before an option existed was made with: `--normalize` came in 0.7.0, and terms were not normalised before. */
const UNRECORDED: Record<string, unknown> = { "--normalize": "none" };

/**
 * Refuses a batch whose method or feature options differ from the index's, naming every
 * difference (`--shingle-size: index 5, this run 3`).
 */
export function requireCompatible(dir: string, index: IndexManifest, method: string, options: Record<string, unknown>): void {
  if (index.method !== method) throw new VertdupError(`${dir}: an index of --method ${index.method}, not ${method}: give the same method as the index`);
  const names = [...new Set([...Object.keys(index.options), ...Object.keys(options)])].sort();
  const recorded = (name: string) => index.options[name] ?? (name in options ? UNRECORDED[name] : undefined);
  const differ = names.filter((name) => JSON.stringify(recorded(name)) !== JSON.stringify(options[name]));
  if (differ.length > 0) {
    const show = (v: unknown) => (v === undefined ? "unset" : JSON.stringify(v));
    const older = (name: string) => (name in UNRECORDED && !(name in index.options) ? ` (not recorded: made by vertdup 0.6.0 or earlier)` : "");
    const list = differ.map((name) => `${name}: index ${show(recorded(name))}${older(name)}, this run ${show(options[name])}`).join("; ");
    throw new VertdupError(`${dir}: options incompatible with the index (${list}): give the index's values or build a new index`);
  }
}

/** `--partition-attr` among an index's options, only where given (indices made without it have no such key). */
export function partitionIndexOption(o: { partitionAttr?: string }): Record<string, unknown> {
  return o.partitionAttr === undefined ? {} : { "--partition-attr": o.partitionAttr };
}

/** An empty index of `method`: the base run adds its corpus as batch 0 with an IndexUpdate. */
export function newIndex(method: string, options: Record<string, unknown>): IndexManifest {
  return { format: FORMAT, method, options, documents: 0, batches: [], files: {}, generation: 1 };
}

/**
 * One update of an index: `file(role, name)` gives where to write a new data file (in this
 * update's generation folder) and lists it under its role; `commit` puts the new manifest in
 * place, then removes what no manifest lists. Roles not rewritten keep their old files.
 */
export class IndexUpdate {
  readonly manifest: IndexManifest;
  private readonly folder: string;
  private readonly previousDocuments: number;

  /** An update of `previous` (newIndex for the base) adding a batch of `documents` documents read from `inputs` (of these `digests`). */
  constructor(
    readonly dir: string,
    previous: IndexManifest,
    inputs: readonly string[],
    digests: readonly (InputDigest | null)[],
    documents: number,
  ) {
    this.folder = join(INDEX_DATA, `g${String(previous.generation).padStart(4, "0")}`);
    this.previousDocuments = previous.documents;
    const batch: IndexBatch = {
      batch: previous.batches.length,
      created: batchDate().toISOString(),
      inputs: [...inputs],
      digests: [...digests],
      documents,
      firstOrdinal: previous.documents,
      version: packageVersion(),
    };
    this.manifest = {
      ...previous,
      documents: previous.documents + documents,
      batches: [...previous.batches, batch],
      files: { ...previous.files },
      generation: previous.generation + 1,
    };
  }

  /** Sets the batch's documents when they are known only after its files are written (before `commit`). */
  countDocuments(documents: number): void {
    this.manifest.documents = this.previousDocuments + documents;
    this.manifest.batches[this.manifest.batches.length - 1].documents = documents;
  }

  /** Path of a new data file for `role`, created in this update's generation folder. */
  async file(role: string, name: string): Promise<string> {
    await mkdir(join(this.dir, this.folder), { recursive: true });
    this.manifest.files[role] = join(this.folder, name).split(sep).join("/");
    return join(this.dir, this.manifest.files[role]);
  }

  /** Lists no file under `role` any more (its file goes at commit, if no role lists it). */
  forget(role: string): void {
    delete this.manifest.files[role];
  }

  /** Lists an existing file of the directory (e.g. a run's signature store) under `role`. */
  keep(role: string, path: string): void {
    this.manifest.files[role] = relative(this.dir, path).split(sep).join("/");
  }

  /** The commit point: the new manifest replaces the old atomically; then unlisted data files go. */
  async commit(): Promise<void> {
    killPoint("index:before-commit");
    await writeAtomic(join(this.dir, INDEX_MANIFEST), `${JSON.stringify(this.manifest, null, 2)}\n`);
    killPoint("index:after-commit");
    await collectGarbage(this.dir, this.manifest);
  }
}

/** Makes `dir` no index (a new run in it starts over): the manifest goes first, so that a crash leaves no half index. */
export async function removeIndex(dir: string): Promise<void> {
  await rm(join(dir, INDEX_MANIFEST), { force: true });
  await rm(join(dir, INDEX_DATA), { recursive: true, force: true });
}

/** Removes the generation folders' files that `manifest` does not list (left by updates that crashed or were superseded). */
export async function collectGarbage(dir: string, manifest: IndexManifest): Promise<void> {
  const root = join(dir, INDEX_DATA);
  if (!existsSync(root)) return;
  const listed = new Set(Object.values(manifest.files));
  for (const generation of await readdir(root)) {
    const folder = join(root, generation);
    const names = await readdir(folder);
    const unlisted = names.filter((name) => !listed.has(`${INDEX_DATA}/${generation}/${name}`));
    if (unlisted.length === names.length) await rm(folder, { recursive: true, force: true });
    else for (const name of unlisted) await rm(join(folder, name), { force: true });
  }
}

/** The index's committed content (manifest and listed files), for comparing two states byte for byte. */
export async function indexContent(dir: string): Promise<Map<string, Buffer>> {
  const manifest = await readIndex(dir);
  const out = new Map<string, Buffer>([[INDEX_MANIFEST, await readFile(join(dir, INDEX_MANIFEST))]]);
  for (const file of Object.values(manifest.files).sort()) out.set(file, await readFile(join(dir, file)));
  return out;
}

/**
 * What an index remembers of each input of a batch, to tell a batch given again: the file's
 * absolute path (the report reads old documents' texts from it), its size and the SHA-256
 * of its bytes as stored (compressed or not: one read of the file, ~0.6 s per GB).
 */
export interface InputDigest {
  path: string;
  bytes: number;
  sha256: string;
}
