import { writeFileSync } from "node:fs";
import { rng } from "./vert.js";

/** The 13-token page that issue 11's corpus repeats 30,000 times. */
const NOT_FOUND = "The page you are looking for was not found on this server sorry".split(" ");

function doc(id: string, ...paragraphs: string[][]): string {
  return `<doc id="${id}">\n${paragraphs.map((p) => `<p>\n<s>\n${p.join("\n")}\n</s>\n</p>\n`).join("")}</doc>\n`;
}

/**
 * `n` pseudo-random words from a vocabulary of `vocabulary` made-up words, log-uniform as in
 * text: a few words are frequent, most are rare.
 */
function words(r: () => number, n: number, vocabulary: number): string[] {
  return Array.from({ length: n }, () => `w${Math.floor(Math.exp(r() * Math.log(vocabulary))).toString(36)}`);
}

/**
 * Writes the shape of issue 11's corpus to `path`: `copies` documents with the same 13-token
 * "page not found" text (ids nf0, nf1, …) interleaved with `unique` short unique documents
 * (8–40 random words; ids u0, u1, …). Deterministic in `seed`.
 */
export function writeIdenticalCorpus(path: string, copies: number, unique: number, seed = 1): void {
  const r = rng(seed);
  const parts: string[] = [];
  let c = 0;
  let u = 0;
  while (c < copies || u < unique) {
    if (u >= unique || (c < copies && r() < copies / (copies + unique))) parts.push(doc(`nf${c++}`, NOT_FOUND));
    else parts.push(doc(`u${u++}`, words(r, 8 + Math.floor(r() * 33), 100_000)));
  }
  writeFileSync(path, parts.join(""));
}

/**
 * Writes `copies` near copies of one 300-word article (ids nc0, nc1, …), each under its own
 * header paragraph of 4 random words, as mirrors and feeds republish a page. Deterministic.
 */
export function writeNearCopyCorpus(path: string, copies: number, seed = 1): void {
  const r = rng(seed);
  const article = words(r, 300, 5000);
  const parts: string[] = [];
  for (let k = 0; k < copies; k++) parts.push(doc(`nc${k}`, words(r, 4, 100_000), article));
  writeFileSync(path, parts.join(""));
}
