import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { resolve } from "node:path";
import { VertdupError } from "../core/errors.js";
import type { IndexManifest, InputDigest } from "./index-store.js";

/** The digest of each input, null for standard input (it cannot be read twice). */
export async function digestInputs(inputs: readonly string[]): Promise<(InputDigest | null)[]> {
  const out: (InputDigest | null)[] = [];
  for (const input of inputs) {
    if (input === "-") {
      out.push(null);
      continue;
    }
    const hash = createHash("sha256");
    let bytes = 0;
    try {
      for await (const piece of createReadStream(input, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
        hash.update(piece);
        bytes += piece.length;
      }
    } catch (err) {
      throw new VertdupError(`${input}: cannot read input file (${(err as Error).message})`);
    }
    out.push({ path: resolve(input), bytes, sha256: hash.digest("hex") });
  }
  return out;
}

/** An input of the run whose bytes equal an input of an earlier batch of the index. */
export interface RepeatedInput {
  input: string;
  batch: number;
  created: string;
  /** The earlier batch's input, as that run was given it. */
  earlier: string;
}

/**
 * The first input among `inputs` (with their digests) that an earlier batch of `index`
 * already read. Empty files are not compared (they add no document), nor batches recorded
 * before digests were.
 */
export function repeatedInput(index: IndexManifest, inputs: readonly string[], digests: readonly (InputDigest | null)[]): RepeatedInput | undefined {
  for (const [k, digest] of digests.entries()) {
    if (digest === null || digest.bytes === 0) continue;
    for (const batch of index.batches) {
      const at = (batch.digests ?? []).findIndex((d) => d !== null && d.bytes === digest.bytes && d.sha256 === digest.sha256);
      if (at >= 0) return { input: inputs[k], batch: batch.batch, created: batch.created, earlier: batch.inputs[at] };
    }
  }
  return undefined;
}

/**
 * Refuses an `--update` that would append inputs the index already holds (every document
 * would be added twice); without `--update`, says so through `warn` (every document of
 * that input has its copy in the index, which may be what the user asks).
 */
export function checkRepeat(dir: string, index: IndexManifest, inputs: readonly string[], digests: readonly (InputDigest | null)[], update: boolean, warn: (message: string) => void): void {
  const repeat = repeatedInput(index, inputs, digests);
  if (repeat === undefined) return;
  const what = `${repeat.input} has the same bytes as ${repeat.earlier}, batch ${repeat.batch} of ${dir} (added ${repeat.created})`;
  if (update) throw new VertdupError(`${what}: refusing to append it again (its documents are in the index already)`);
  warn(`${what}: its documents are in the index already`);
}

/**
 * The digests of a run's inputs, checked against each `--against` index (checkRepeat; with
 * `update`, the one index appended to): what the batch records when it is added.
 */
export async function checkedDigests(indices: readonly { dir: string; manifest: IndexManifest }[], inputs: readonly string[], update: boolean, warn: (message: string) => void): Promise<(InputDigest | null)[]> {
  const digests = await digestInputs(inputs);
  for (const { dir, manifest } of indices) checkRepeat(dir, manifest, inputs, digests, update, warn);
  return digests;
}
