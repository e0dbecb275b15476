import { describe, expect, it } from "vitest";
import { EdgeList, NO_DOC, type DuplicateGraph } from "../../src/clusters/duplicate-graph.js";
import { partitionGraph, partitionNumbers } from "../../src/clusters/partitions.js";
import { VertdupError } from "../../src/core/errors.js";

function edgesOf(graph: DuplicateGraph): [number, number, number][] {
  return Array.from({ length: graph.edges.length }, (_, k) => [graph.edges.a(k), graph.edges.b(k), graph.edges.similarity(k)]);
}

describe("partitionNumbers", () => {
  it("numbers values in order of first appearance over the shards, and refuses a shard read without the attribute", () => {
    expect([...partitionNumbers([["de", "fr"], [], ["", "de", "cs"]], "lang")]).toEqual([0, 1, 2, 0, 3]);
    expect(() => partitionNumbers([["de"], undefined], "lang")).toThrow(VertdupError);
  });
});

describe("partitionGraph", () => {
  // Documents 0–3 share features (0, 2: partition 0; 1, 3: partition 1), 4 and 5 share other
  // features (4: partition 1, 5: partition 2), 6 has none; one edge joins the two groups.
  const part = Uint32Array.from([0, 1, 0, 1, 1, 2, 0]);
  const edges = new EdgeList();
  edges.push(0, 4, 0.9);
  const graph: DuplicateGraph = { documents: 7, firstOf: Uint32Array.from([0, 0, 0, 0, 4, 4, NO_DOC]), edges, cosines: Float64Array.from([0.97]) };

  it("splits identity groups by partition, each led by its first document there", () => {
    expect([...partitionGraph(graph, part).firstOf]).toEqual([0, 1, 0, 1, 4, 5, NO_DOC]);
  });

  it("keeps an edge between two groups only in the partitions both hold, between their leaders there, with its cosine", () => {
    const split = partitionGraph(graph, part);
    expect(edgesOf(split)).toEqual([[1, 4, 0.9]]);
    expect([...(split.cosines ?? [])]).toEqual([0.97]);
  });

  it("leaves a graph within one partition as it is", () => {
    const one = partitionGraph(graph, new Uint32Array(7));
    expect([...one.firstOf]).toEqual([...graph.firstOf]);
    expect(edgesOf(one)).toEqual(edgesOf(graph));
  });
});
