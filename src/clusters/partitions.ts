import { VertdupError } from "../core/errors.js";
import { growableF64 } from "../util/typed-arrays.js";
import { EdgeList, NO_DOC, type DuplicateGraph } from "./duplicate-graph.js";

/**
 * Each document's partition (`--partition-attr`) as a number, from the shards' lists of
 * values in corpus order: numbered in order of first appearance, so the same corpus gives the
 * same numbers whatever the shards. A shard without values (made without the option) is refused.
 */
export function partitionNumbers(lists: readonly (readonly string[] | undefined)[], attr: string): Uint32Array {
  const numbers = new Map<string, number>();
  const out = new Uint32Array(lists.reduce((n, l) => n + (l?.length ?? 0), 0));
  let at = 0;
  for (const list of lists) {
    if (list === undefined) throw new VertdupError(`documents read without --partition-attr ${attr} cannot be partitioned: read them again with it`);
    for (const value of list) {
      let n = numbers.get(value);
      if (n === undefined) numbers.set(value, (n = numbers.size));
      out[at++] = n;
    }
  }
  return out;
}

/**
 * `graph` with no pair across partitions (`part[d]`: document d's partition): an identity group
 * whose documents lie in several partitions becomes one group per partition (led by its first
 * document there), and an edge between two groups becomes an edge between their leaders in
 * each partition both groups have (with its similarity and cosine: the features are the
 * groups'). Every pair of the result was a pair of `graph`; every pair of `graph` within one
 * partition is one of the result.
 */
export function partitionGraph(graph: DuplicateGraph, part: Uint32Array): DuplicateGraph {
  const { documents, firstOf, edges, cosines } = graph;
  if (part.length !== documents) throw new VertdupError(`partition values of ${part.length} documents for a graph of ${documents}`);
  // The leaders of groups spanning several partitions: partition → the group's first document there.
  const split = new Map<number, Map<number, number>>();
  const first = new Uint32Array(documents).fill(NO_DOC);
  for (let d = 0; d < documents; d++) {
    const f = firstOf[d];
    if (f === NO_DOC) continue;
    if (part[d] === part[f]) {
      first[d] = f;
      continue;
    }
    let leaders = split.get(f);
    if (leaders === undefined) split.set(f, (leaders = new Map([[part[f], f]])));
    let leader = leaders.get(part[d]);
    if (leader === undefined) leaders.set(part[d], (leader = d));
    first[d] = leader;
  }
  const leaderIn = (f: number, p: number) => (part[f] === p ? f : split.get(f)?.get(p));
  const kept = new EdgeList();
  const keptCosines = growableF64();
  for (let k = 0; k < edges.length; k++) {
    const a = edges.a(k);
    const b = edges.b(k);
    for (const [p, la] of split.get(a) ?? [[part[a], a]]) {
      const lb = leaderIn(b, p);
      if (lb === undefined) continue;
      kept.push(la, lb, edges.similarity(k));
      if (cosines !== undefined) keptCosines.append([cosines[k]]);
    }
  }
  const out: DuplicateGraph = { documents, firstOf: first, edges: kept };
  if (cosines !== undefined) out.cosines = keptCosines.values.slice(0, keptCosines.length);
  return out;
}
