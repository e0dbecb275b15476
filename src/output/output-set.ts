import { existsSync } from "node:fs";
import { join } from "node:path";
import { VertdupError } from "../core/errors.js";
import { digestInputs } from "../workdir/batch-digest.js";

/** A file of an output directory as manifest.json names it. */
export interface VouchedFile {
  bytes: number;
  sha256: string;
}

/**
 * The size and SHA-256 of each of `names` present in `outdir`: manifest.json, written last,
 * names them, so that a reader can tell a set of one run from a mix (a later run into the
 * same directory interrupted halfway).
 */
export async function vouchedFiles(outdir: string, names: readonly string[]): Promise<Record<string, VouchedFile>> {
  const present = names.filter((n) => existsSync(join(outdir, n)));
  const digests = await digestInputs(present.map((n) => join(outdir, n)));
  return Object.fromEntries(present.map((n, k) => [n, { bytes: digests[k]!.bytes, sha256: digests[k]!.sha256 }]));
}

/**
 * Refuses `name` in `outdir` unless it is the file manifest.json names; `files` absent (a
 * manifest of a version before 0.7) vouches for nothing and refuses nothing.
 */
export async function checkVouched(outdir: string, name: string, files: Record<string, VouchedFile> | undefined): Promise<void> {
  if (files === undefined) return;
  const path = join(outdir, name);
  const again = `another run wrote into ${outdir} after it or stopped halfway there: run vertdup run into it again`;
  const named = files[name];
  if (named === undefined) throw new VertdupError(`${path}: not one of the files ${join(outdir, "manifest.json")} names: ${again}`);
  const [now] = await digestInputs([path]);
  if (now!.bytes !== named.bytes || now!.sha256 !== named.sha256) {
    throw new VertdupError(`${path}: not the file ${join(outdir, "manifest.json")} names (${named.bytes} bytes, sha256 ${named.sha256.slice(0, 12)}…; it has ${now!.bytes} bytes, sha256 ${now!.sha256.slice(0, 12)}…): ${again}`);
  }
}
