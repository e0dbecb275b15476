import { UnionFind } from "../util/union-find.js";
import { growableU32 } from "../util/typed-arrays.js";

/** The pair columns of a PLEB group file: store indices i < j, distance, first iteration. */
export interface PairColumns {
  i: Uint32Array;
  j: Uint32Array;
  distance: Uint32Array;
  iteration: Uint32Array;
}

/**
 * The spanning forest of the signature pairs PLEB finds, in O(signatures) memory however
 * many pairs there are (`--pairs edges`): pairs are offered in a fixed sequence — iterations
 * in order, within an iteration the beam scan's order (sorted position p, then q) — and a
 * pair is kept iff its two signatures are not yet joined (Kruskal's rule over that order).
 *
 * Why iteration groups can be reduced apart and then together (any `--iterations-per-group`,
 * any `--workers`, any scheduling). Write F(S) for the forest kept from a sequence S.
 * (a) Every prefix of F(S) joins exactly the signatures the same prefix of S joins: a pair
 *     is dropped only when its ends are already joined by earlier kept pairs.
 * (b) So F decides on a pair from the components of all pairs before it, whatever forest
 *     stands for them.
 * Let S = S1 ++ … ++ Sk (the groups in iteration order) and R = F(S1) ++ … ++ F(Sk). Before
 * a pair e of Sg, the pairs of S before e and the pairs of R before e join the same
 * signatures, by (a) applied to S1 … Sg−1 and to the prefix of Sg. If e ∈ F(Sg), F(S) and
 * F(R) decide on e alike by (b); if e ∉ F(Sg), its ends are joined by earlier pairs of Sg,
 * so F(S) drops it too. Hence F(R) = F(S), in the same order: the forest of all found pairs.
 *
 * Leaving out pairs that F drops changes no later decision (they join nothing new). So the
 * beam scan may skip a pair whose signatures were joined before its iteration began
 * (`labelComponents`): the group's forest would drop it. Pairs joined only within the
 * iteration are still reported, so the forest never depends on how the scan is cut into
 * chunks.
 */
export class SpanningForest {
  private readonly sets: UnionFind;
  /** Kept pairs as (i, j, distance, iteration) quadruples, in the order they were kept. */
  private readonly kept = growableU32();

  constructor(readonly signatures: number) {
    this.sets = new UnionFind(signatures);
  }

  /** Pairs kept so far. */
  get size(): number {
    return this.kept.length / 4;
  }

  /** Offers a pair (i < j); keeps it and returns true iff i and j were not yet joined. */
  add(i: number, j: number, distance: number, iteration: number): boolean {
    if (this.sets.find(i) === this.sets.find(j)) return false;
    this.sets.union(i, j);
    const v = this.kept.reserve(4);
    const at = this.kept.length;
    v[at] = i;
    v[at + 1] = j;
    v[at + 2] = distance;
    v[at + 3] = iteration;
    this.kept.length += 4;
    return true;
  }

  /** Whether i and j are already joined (a pair of them would be dropped). */
  joined(i: number, j: number): boolean {
    return this.sets.find(i) === this.sets.find(j);
  }

  /** Offers the (i, j, distance) triples of one iteration's beam scan, in scan order. */
  addTriples(triples: Uint32Array, iteration: number): void {
    for (let k = 0; k < triples.length; k += 3) this.add(triples[k], triples[k + 1], triples[k + 2], iteration);
  }

  /** Offers the pairs of a group file, in their order. */
  addColumns(c: PairColumns): void {
    for (let k = 0; k < c.i.length; k++) this.add(c.i[k], c.j[k], c.distance[k], c.iteration[k]);
  }

  /** Writes each signature's component (a root index): equal labels, already joined. */
  labelComponents(labels: Uint32Array): void {
    for (let i = 0; i < this.signatures; i++) labels[i] = this.sets.find(i);
  }

  /** The kept pairs as columns, in the order they were kept. */
  toColumns(): PairColumns {
    const n = this.size;
    const v = this.kept.values;
    const out = { i: new Uint32Array(n), j: new Uint32Array(n), distance: new Uint32Array(n), iteration: new Uint32Array(n) };
    for (let k = 0; k < n; k++) {
      out.i[k] = v[4 * k];
      out.j[k] = v[4 * k + 1];
      out.distance[k] = v[4 * k + 2];
      out.iteration[k] = v[4 * k + 3];
    }
    return out;
  }
}
