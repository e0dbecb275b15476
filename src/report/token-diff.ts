import { diffArrays } from "diff";

/**
 * A token-level diff of two documents for the report, by jsdiff's `diffArrays` (Myers'
 * O((n + m)·D) shortest edit script, so two long documents that differ in a few places —
 * what a sampled pair usually is — cost little). Its common tokens are a longest common
 * subsequence.
 */

/** Edits beyond which two documents are not aligned (the search's cost grows as D²). */
export const MAX_DIFF_EDITS = 2000;

/** For each token of `a` and of `b`: 1 when it is part of the common subsequence, 0 when it differs. */
export interface TokenDiff {
  aSame: Uint8Array;
  bSame: Uint8Array;
}

/** The diff of a and b; null when it takes more than `maxEdits` insertions and deletions. */
export function tokenDiff(a: readonly string[], b: readonly string[], maxEdits = MAX_DIFF_EDITS): TokenDiff | null {
  const changes = diffArrays([...a], [...b], { maxEditLength: maxEdits });
  if (changes === undefined) return null;
  const aSame = new Uint8Array(a.length);
  const bSame = new Uint8Array(b.length);
  let x = 0;
  let y = 0;
  for (const c of changes) {
    const n = c.count ?? c.value.length;
    if (c.removed) x += n;
    else if (c.added) y += n;
    else {
      aSame.fill(1, x, x + n);
      bSame.fill(1, y, y + n);
      x += n;
      y += n;
    }
  }
  return { aSame, bSame };
}
