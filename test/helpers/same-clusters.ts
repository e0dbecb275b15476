import { join } from "node:path";
import { expect } from "vitest";
import { readTsv } from "./cli.js";

/**
 * The runs in `edges` (--pairs edges) and `all` (--pairs all, same search) have the same
 * clusters and representatives. dup_of names a pair the run kept (issue 30 item 4), so with
 * fewer pairs kept it may name another member: one of the pairs `all` lists, at that pair's
 * similarity (its last column: the verified cosine when there is one).
 */
export function expectSameClusters(edges: string, all: string): void {
  const clusters = (out: string) => readTsv(join(out, "clusters.tsv"));
  expect(clusters(edges).map((r) => r.slice(0, 4))).toEqual(clusters(all).map((r) => r.slice(0, 4)));
  const found = new Set(readTsv(join(all, "pairs.tsv")).flatMap(([a, b, ...s]) => [`${a} ${b} ${s.at(-1)}`, `${b} ${a} ${s.at(-1)}`]));
  for (const out of [edges, all]) {
    const members = clusters(out).filter((r) => r[3] === "0");
    expect(members.length).toBeGreaterThan(10);
    for (const [doc, , , , dupOf, similarity] of members) expect(found, `${out}: ${doc}`).toContain(`${doc} ${dupOf} ${similarity}`);
  }
}
