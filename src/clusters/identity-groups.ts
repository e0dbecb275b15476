import { NO_DOC } from "./duplicate-graph.js";

/**
 * The documents of each identity group (documents sharing `firstOf`), contiguous and in
 * corpus order, groups in corpus order of their leaders: a counting sort of `firstOf`
 * (12 bytes per document). Every document with features is in exactly one group, which
 * may be just itself.
 */
export class IdentityGroups {
  /** Per leader: how many documents its group has (0 for a document that leads none). */
  readonly size: Uint32Array;
  /** Per leader: where its group starts in `members`. */
  readonly start: Uint32Array;
  readonly members: Uint32Array;
  /** Groups of two or more documents, and the documents in them. */
  readonly shared: number;
  readonly documentsInShared: number;

  constructor(firstOf: Uint32Array) {
    const n = firstOf.length;
    const size = new Uint32Array(n);
    for (let d = 0; d < n; d++) if (firstOf[d] !== NO_DOC) size[firstOf[d]]++;
    const start = new Uint32Array(n);
    let at = 0;
    let shared = 0;
    let inShared = 0;
    for (let d = 0; d < n; d++) {
      start[d] = at;
      at += size[d];
      if (size[d] >= 2) {
        shared++;
        inShared += size[d];
      }
    }
    const members = new Uint32Array(at);
    const cursor = start.slice();
    for (let d = 0; d < n; d++) if (firstOf[d] !== NO_DOC) members[cursor[firstOf[d]]++] = d;
    this.size = size;
    this.start = start;
    this.members = members;
    this.shared = shared;
    this.documentsInShared = inShared;
  }
}
