import { readFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { storeFiles } from "../workdir/layout.js";
import { openAtomic, type AtomicStream } from "../util/atomic.js";
import { VertdupError } from "../core/errors.js";
import { WORKDIR_ADVICE } from "../util/json-file.js";
import { mergeRuns } from "./merge.js";
import { compareWords, type SigRecord } from "../sketch/signature-record.js";

/**
 * The distinct signatures of the corpus in sorted order, each with the documents that
 * share it (the thesis stores identical signatures once with their document list).
 * `signatures` holds n × words Uint32 back to back in a SharedArrayBuffer so that PLEB
 * workers read it without copying; the documents of signature i are
 * docs[offsets[i] .. offsets[i+1]).
 */
export interface SignatureStore {
  words: number;
  count: number;
  signatures: Uint32Array;
  offsets: Uint32Array;
  docs: Uint32Array;
}

/** A u32 file written through a buffer: `add` fills it, `flush` writes what is full. */
class U32Sink {
  private buffer = new Uint32Array(1 << 16);
  private used = 0;
  private full: Buffer[] = [];
  constructor(readonly file: AtomicStream) {}
  add(values: Uint32Array): void {
    for (let from = 0; from < values.length; ) {
      const n = Math.min(values.length - from, this.buffer.length - this.used);
      this.buffer.set(values.subarray(from, from + n), this.used);
      this.used += n;
      from += n;
      if (this.used === this.buffer.length) this.seal();
    }
  }
  add1(value: number): void {
    this.buffer[this.used++] = value;
    if (this.used === this.buffer.length) this.seal();
  }
  private seal(): void {
    this.full.push(Buffer.from(this.buffer.buffer, 0, this.used * 4));
    this.buffer = new Uint32Array(this.buffer.length);
    this.used = 0;
  }
  async flush(): Promise<void> {
    for (const chunk of this.full.splice(0)) await this.file.write(chunk);
  }
  async commit(): Promise<void> {
    if (this.used > 0) this.seal();
    await this.flush();
    await this.file.commit();
  }
}

/**
 * Merges the sorted signature runs (and the `extra` sorted streams: a saved index's store,
 * storeRecords) into the store files; returns (distinct, documents).
 */
export async function writeSignatureStore(
  workdir: string,
  runPaths: readonly string[],
  scratch: (level: number, group: number) => string,
  extra: readonly AsyncIterable<SigRecord>[] = [],
): Promise<{ distinct: number; documents: number }> {
  const files = storeFiles(workdir);
  const sigs = new U32Sink(openAtomic(files.signatures));
  const offsets = new U32Sink(openAtomic(files.offsets));
  const docs = new U32Sink(openAtomic(files.docs));
  let previous: Uint32Array | null = null;
  let distinct = 0;
  let documents = 0;
  for await (const { stride, values } of mergeRuns(runPaths, scratch, undefined, extra)) {
    for (let at = 0; at < values.length; at += stride) {
      const s = values.subarray(at + 1, at + stride);
      if (previous === null || compareWords(previous, s) !== 0) {
        sigs.add(s);
        offsets.add1(documents);
        previous = s;
        distinct++;
      }
      docs.add1(values[at]);
      documents++;
    }
    await Promise.all([sigs.flush(), offsets.flush(), docs.flush()]);
  }
  offsets.add1(documents);
  await sigs.commit();
  await docs.commit();
  await offsets.commit();
  return { distinct, documents };
}

/** A raw little-endian u32 file, in shared memory if `shared`. */
export function readU32(path: string, shared: boolean): Uint32Array {
  const bytes = readFileSync(path);
  if (bytes.length % 4 !== 0) throw new VertdupError(`${path}: ${bytes.length} bytes, not whole 32-bit values: the file is truncated or corrupted: ${WORKDIR_ADVICE}`);
  const out = new Uint32Array(shared ? new SharedArrayBuffer(bytes.length) : new ArrayBuffer(bytes.length));
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

/** Where a store's three files are (storeFiles of a work directory, or an index's). */
export type StoreFiles = ReturnType<typeof storeFiles>;

/**
 * A store's documents as sorted SigRecords (one per document, ordinals + `offset`), read in
 * blocks of signatures: the order the runs are merged in, so a store merges with new runs.
 */
export async function* storeRecords(files: StoreFiles, bits: number, offset: number): AsyncGenerator<SigRecord> {
  const words = bits / 32;
  const offsets = readU32(files.offsets, false);
  const docs = readU32(files.docs, false);
  const handle = await open(files.signatures, "r");
  try {
    const block = 4096;
    for (let first = 0; first + 1 < offsets.length; first += block) {
      const n = Math.min(block, offsets.length - 1 - first);
      const bytes = Buffer.alloc(n * words * 4);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, first * words * 4);
      if (bytesRead !== bytes.length) throw new Error(`${files.signatures}: ${bytesRead} bytes read of ${bytes.length} at signature ${first}`);
      const sigs = new Uint32Array(bytes.buffer, bytes.byteOffset, n * words);
      for (let i = 0; i < n; i++) {
        const s = sigs.slice(i * words, (i + 1) * words);
        for (let p = offsets[first + i]; p < offsets[first + i + 1]; p++) yield { d: docs[p] + offset, s };
      }
    }
  } finally {
    await handle.close();
  }
}

export function loadSignatureStore(workdir: string, bits: number): SignatureStore {
  const files = storeFiles(workdir);
  const words = bits / 32;
  const signatures = readU32(files.signatures, true);
  const offsets = readU32(files.offsets, false);
  return { words, count: signatures.length / words, signatures, offsets, docs: readU32(files.docs, false) };
}
