import type { PrepareManifest } from "./prepare-manifest.js";
import { vocabularyFile } from "../workdir/layout.js";
import { readKeptTerms, readVocabularyHeader, signingIndex, vocabularyIndex, type VocabularyIndex } from "./vocabulary.js";
import { NumberMap, type SharedNumberMap } from "../util/number-map.js";
import { growableF64, growableU32, growableU8 } from "../util/typed-arrays.js";
import { forEachCountsVector, ONCE_COLUMN, type CountsPart } from "./workdir-vectors.js";
import { unitCosine } from "../util/similarity-threshold.js";

/**
 * Document vectors of a work directory kept as term counts, for the exact cosine of a few
 * pairs among many rows (PLEB's `--verify`). A row is its (rank, tf) entries in the
 * document's term order and its L2 norm. An entry is the LEB128 varint 2·rank + (tf > 1),
 * followed by the varint tf − 2 when tf > 1 (ranks follow decreasing df, so most take one or
 * two bytes, and most tf are 1); a component is tf · factor[rank] / norm, made when
 * a pair is scored. These are the operations, in the same order, that make the unit rows of
 * loadWorkdirVectors, and the dot product runs over the second row's terms in order as
 * rowCosine does: `cosine` gives rowCosine's bits for about 2.3 bytes per (document, term)
 * instead of 12.
 */
export interface CountRowsPart {
  ordinals: Uint32Array;
  norms: Float64Array;
  /** Entries of each row. */
  lengths: Uint32Array;
  /** Byte where each row ends in `bytes`. */
  ends: Uint32Array;
  bytes: Uint8Array;
}

/** What the count rows of one shard's counts need: the kept vocabulary's ranks and factors (vocabularyIndex, or signingIndex with its onceFactor), shared. */
export interface CountRowsTask extends CountsPart {
  ranks: SharedNumberMap;
  factors: Float64Array;
  /** The factor of a term not in `ranks` (signingIndex: df = 1; 0 or absent: not kept). */
  onceFactor?: number;
  /** A flag per corpus ordinal (after the part's offset): keep only those documents' rows. */
  only: Uint8Array;
}

/** The rank table of a worker, rebuilt once from the shared buffers. */
let table: { ranks: SharedNumberMap; map: NumberMap } | null = null;

function writeVarint(out: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    out[at++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 0x80);
  }
  out[at++] = value;
  return at;
}

/** Read position of `readVarint`. */
let at = 0;
/** The rank of the entry `readEntry` read last. */
let rank = 0;

function readVarint(bytes: Uint8Array): number {
  let byte = bytes[at++];
  let value = byte & 0x7f;
  for (let scale = 0x80; byte >= 0x80; scale *= 0x80) {
    byte = bytes[at++];
    value += (byte & 0x7f) * scale;
  }
  return value;
}

/** Reads an entry at `at`: sets `rank`, returns tf. */
function readEntry(bytes: Uint8Array): number {
  const head = readVarint(bytes);
  rank = Math.floor(head / 2);
  return head % 2 === 1 ? readVarint(bytes) + 2 : 1;
}

/** The count rows of one shard's flagged documents. A pool task (`countRows`). */
export function shardCountRows(task: CountRowsTask): CountRowsPart {
  if (table === null || table.ranks.keys !== task.ranks.keys) table = { ranks: task.ranks, map: NumberMap.fromShared(task.ranks) };
  const ordinals = growableU32(1 << 10);
  const norms = growableF64(1 << 10);
  const lengths = growableU32(1 << 10);
  const ends = growableU32(1 << 10);
  const bytes = growableU8();
  const weights = { rank: table.map, factor: task.factors, onceFactor: task.onceFactor };
  forEachCountsVector(
    [task],
    weights,
    (ordinal, cols, vals, tfs, length) => {
      let sq = 0;
      for (let k = 0; k < length; k++) sq += vals[k] * vals[k];
      const out = bytes.reserve(10 * length);
      let p = bytes.length;
      let entries = 0;
      for (let k = 0; k < length; k++) {
        // A term of df = 1 counts in the norm (above, in the document's term order) but is
        // in no other document: its product with any other row is +0, which leaves the dot
        // product's bits as they are, so it needs no entry.
        if (cols[k] === ONCE_COLUMN) continue;
        p = writeVarint(out, p, 2 * cols[k] + (tfs[k] > 1 ? 1 : 0));
        if (tfs[k] > 1) p = writeVarint(out, p, tfs[k] - 2);
        entries++;
      }
      bytes.length = p;
      ordinals.append([ordinal]);
      norms.append([Math.sqrt(sq)]);
      lengths.append([entries]);
      ends.append([p]);
    },
    task.only,
  );
  return { ordinals: ordinals.view().slice(), norms: norms.view().slice(), lengths: lengths.view().slice(), ends: ends.view().slice(), bytes: bytes.view().slice() };
}

export class CountRows {
  /** Corpus ordinal, norm, entries, part and first byte of each row, rows in corpus order. */
  readonly ordinals: Uint32Array;
  private readonly norms: Float64Array;
  private readonly lengths: Uint32Array;
  private readonly part: Uint32Array;
  private readonly start: Uint32Array;
  /** Each part's bytes, kept as they came (no joined copy). */
  private readonly bytes: Uint8Array[];

  constructor(
    parts: CountRowsPart[],
    /** Weight factor of each rank; term indices are < its length. */
    readonly factors: Float64Array,
  ) {
    const rows = parts.reduce((n, p) => n + p.ordinals.length, 0);
    this.ordinals = new Uint32Array(rows);
    this.norms = new Float64Array(rows);
    this.lengths = new Uint32Array(rows);
    this.part = new Uint32Array(rows);
    this.start = new Uint32Array(rows);
    let row = 0;
    parts.forEach((p, s) => {
      this.ordinals.set(p.ordinals, row);
      this.norms.set(p.norms, row);
      this.lengths.set(p.lengths, row);
      for (let r = 0; r < p.ordinals.length; r++) {
        this.part[row + r] = s;
        this.start[row + r] = r === 0 ? 0 : p.ends[r - 1];
      }
      row += p.ordinals.length;
    });
    this.bytes = parts.map((p) => p.bytes);
  }

  /** Exact cosine of rows a and b, rowCosine's bits; `scratch` has a slot per rank, zero between calls. */
  cosine(a: number, b: number, scratch: Float64Array): number {
    const factors = this.factors;
    const bytesA = this.bytes[this.part[a]];
    const normA = this.norms[a];
    at = this.start[a];
    for (let e = this.lengths[a]; e > 0; e--) {
      const tf = readEntry(bytesA);
      scratch[rank] = (tf * factors[rank]) / normA;
    }
    const bytesB = this.bytes[this.part[b]];
    const normB = this.norms[b];
    let dot = 0;
    at = this.start[b];
    for (let e = this.lengths[b]; e > 0; e--) {
      const tf = readEntry(bytesB);
      dot += scratch[rank] * ((tf * factors[rank]) / normB);
    }
    at = this.start[a];
    for (let e = this.lengths[a]; e > 0; e--) {
      readEntry(bytesA);
      scratch[rank] = 0;
    }
    return unitCosine(dot);
  }
}

/** The ranks and factors of a prepared work directory's count rows (loadCountRowParts; `repeated`: of vocab.zst's header alone). */
export function countRowWeights(workdir: string, prepared: PrepareManifest, repeated: boolean): VocabularyIndex & { onceFactor: number } {
  const path = vocabularyFile(workdir);
  const { documents } = prepared.counts;
  const { weighting } = prepared.options;
  const header = repeated ? readVocabularyHeader(path) : undefined;
  return header !== undefined ? signingIndex(header.kept, header, documents, weighting) : { ...vocabularyIndex(readKeptTerms(path), documents, weighting), onceFactor: 0 };
}
