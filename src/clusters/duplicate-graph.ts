import { growableF64, growableU32, type GrowableArray } from "../util/typed-arrays.js";

/** `firstOf` of a document without features (no signature, no kept token): in no group. */
export const NO_DOC = 0xffffffff;

/**
 * Edges between group leaders: documents a < b (corpus ordinals) and their similarity under
 * the method. Typed arrays that grow by doubling: 16 bytes per edge, never a Map or Set.
 */
export class EdgeList {
  private readonly ends: GrowableArray<Uint32Array> = growableU32();
  private readonly sims: GrowableArray<Float64Array> = growableF64();

  get length(): number {
    return this.sims.length;
  }

  push(a: number, b: number, similarity: number): void {
    if (a < b) this.ends.push2(a, b);
    else this.ends.push2(b, a);
    this.sims.append([similarity]);
  }

  a(k: number): number {
    return this.ends.values[2 * k];
  }

  b(k: number): number {
    return this.ends.values[2 * k + 1];
  }

  similarity(k: number): number {
    return this.sims.values[k];
  }
}

/**
 * What every method finds, in space linear in documents and edges (never in the square of a
 * group's size): the primary result from which groups.tsv, pairs.tsv and clusters.tsv are
 * written.
 *
 * - `firstOf[d]` is the ordinal of the first document, in corpus order, whose features are
 *   identical to d's under the method (d itself when none is earlier), or NO_DOC when d has
 *   no features. Documents sharing `firstOf` form an identity group (similarity 1); the
 *   first document is the group's leader.
 * - `edges` join group leaders (a < b, both leaders) found similar by the method, each once.
 * - `cosines[k]`, when the edges were verified against the exact cosine of the documents'
 *   vectors (lsh-cosine `--verify`), is edge k's cosine: pairs.tsv's `cosine` column.
 */
export interface DuplicateGraph {
  documents: number;
  firstOf: Uint32Array;
  edges: EdgeList;
  cosines?: Float64Array;
}
