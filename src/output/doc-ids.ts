import type { ShardDocs } from "../features/count-shard.js";
import { readRunFileSync } from "../util/run-file.js";
import { shardFile } from "../workdir/layout.js";
import { VertdupError } from "../core/errors.js";

const EMPTY = 0xffffffff;

/** FNV-1a over bytes [from, to) of `bytes`. */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

/**
 * Document ids by ordinal, without one JS string per document: the ids' UTF-8 bytes in one
 * buffer and their end offsets in a typed array (about id length + 4 bytes per document).
 * `ordinalOf` answers through an open-addressing hash table of ordinals (8 bytes per
 * document), made on first use. `intern` appends an id unless an equal one is there, which
 * makes a DocIds also the id table of files that name documents only by id (compare).
 */
export class DocIds {
  private bytes: Buffer;
  private ends: Uint32Array;
  private count = 0;
  private used = 0;
  /** Hash slots holding ordinals, EMPTY when free; null until first needed. */
  private table: Uint32Array | null = null;
  private scratch: Buffer = Buffer.alloc(256);

  private constructor(bytes: number, ids: number) {
    this.bytes = Buffer.allocUnsafe(Math.max(64, bytes));
    this.ends = new Uint32Array(Math.max(16, ids));
  }

  /** An empty table to `intern` into. */
  static empty(): DocIds {
    return new DocIds(1 << 12, 1 << 8);
  }

  /** The ids of consecutive parts (shards) in order. */
  static fromLists(parts: readonly (readonly string[])[]): DocIds {
    let n = 0;
    let bytes = 0;
    for (const part of parts) {
      n += part.length;
      for (const id of part) bytes += Buffer.byteLength(id);
    }
    const ids = new DocIds(bytes, n);
    for (const part of parts) for (const id of part) ids.push(id);
    return ids;
  }

  get length(): number {
    return this.count;
  }

  get(k: number): string {
    if (!(k >= 0 && k < this.count)) throw new RangeError(`no document ${k} among ${this.count}`);
    return this.bytes.toString("utf8", k === 0 ? 0 : this.ends[k - 1], this.ends[k]);
  }

  /** Appends an id; returns its ordinal. */
  push(id: string): number {
    const size = Buffer.byteLength(id);
    if (this.used + size > this.bytes.length) {
      if (this.used + size >= 2 ** 32) throw new VertdupError(`document ids take more than 4 GiB`);
      const grown = Buffer.allocUnsafe(Math.min(2 ** 32 - 1, Math.max(2 * this.bytes.length, this.used + size)));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    if (this.count === this.ends.length) {
      const grown = new Uint32Array(2 * this.ends.length);
      grown.set(this.ends);
      this.ends = grown;
    }
    this.bytes.write(id, this.used, size, "utf8");
    this.used += size;
    this.ends[this.count] = this.used;
    const k = this.count++;
    if (this.table !== null) {
      if (2 * this.count > this.table.length) this.rehash(2 * this.table.length);
      else this.insert(k);
    }
    return k;
  }

  /** The ordinal of the first document named `id`, or undefined. */
  ordinalOf(id: string): number | undefined {
    const k = this.find(id);
    return k === EMPTY ? undefined : k;
  }

  /** The ordinal of `id`, appended when no document has it yet. */
  intern(id: string): number {
    const k = this.find(id);
    return k === EMPTY ? this.push(id) : k;
  }

  private startOf(k: number): number {
    return k === 0 ? 0 : this.ends[k - 1];
  }

  private find(id: string): number {
    if (this.table === null) this.rehash(Math.max(16, 2 ** Math.ceil(Math.log2(2 * this.count + 1))));
    const table = this.table as Uint32Array;
    const size = Buffer.byteLength(id);
    if (size > this.scratch.length) this.scratch = Buffer.allocUnsafe(2 * size);
    this.scratch.write(id, 0, size, "utf8");
    const mask = table.length - 1;
    for (let slot = hashBytes(this.scratch, 0, size) & mask; ; slot = (slot + 1) & mask) {
      const k = table[slot];
      if (k === EMPTY) return EMPTY;
      const from = this.startOf(k);
      if (this.ends[k] - from === size && this.bytes.compare(this.scratch, 0, size, from, this.ends[k]) === 0) return k;
    }
  }

  /**
   * The documents whose id an earlier document has, and the first of them: ids should name
   * one document each, but a corpus may repeat one, and a document without an id is named by
   * its ordinal, which another's id may be.
   */
  repeats(): { documents: number; first?: number } {
    let documents = 0;
    let first: number | undefined;
    this.table = new Uint32Array(Math.max(16, 2 ** Math.ceil(Math.log2(2 * this.count + 1)))).fill(EMPTY);
    for (let k = 0; k < this.count; k++) {
      if (this.insert(k)) continue;
      documents++;
      first ??= k;
    }
    return first === undefined ? { documents } : { documents, first };
  }

  /** Adds ordinal k unless an equal id is in the table (the first one answers): whether it was added. */
  private insert(k: number): boolean {
    const table = this.table as Uint32Array;
    const mask = table.length - 1;
    const from = this.startOf(k);
    const size = this.ends[k] - from;
    for (let slot = hashBytes(this.bytes, from, this.ends[k]) & mask; ; slot = (slot + 1) & mask) {
      const j = table[slot];
      if (j === EMPTY) {
        table[slot] = k;
        return true;
      }
      const at = this.startOf(j);
      if (this.ends[j] - at === size && this.bytes.compare(this.bytes, from, this.ends[k], at, this.ends[j]) === 0) return false;
    }
  }

  private rehash(slots: number): void {
    this.table = new Uint32Array(slots).fill(EMPTY);
    for (let k = 0; k < this.count; k++) this.insert(k);
  }
}

/** Document ids in corpus order, gathered from the shards' doc files. */
export function loadDocIds(workdir: string, shards: number): DocIds {
  const ids = DocIds.empty();
  for (let i = 0; i < shards; i++) {
    const [docs] = readRunFileSync<ShardDocs>(shardFile(workdir, i, "docs"));
    for (const id of docs.ids) ids.push(id);
  }
  return ids;
}
