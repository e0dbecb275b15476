/**
 * A token-level diff of two documents for the report: Myers' greedy shortest edit script,
 * O((n + m)·D) time and O(D²) memory for D insertions and deletions, so that two long
 * documents that differ in a few places (what a sampled pair usually is) cost little. Its
 * common tokens are a longest common subsequence.
 */

/** Edits beyond which two documents are not aligned (about 4 M cells of the search's trace). */
export const MAX_DIFF_EDITS = 2000;

/** For each token of `a` and of `b`: 1 when it is part of the common subsequence, 0 when it differs. */
export interface TokenDiff {
  aSame: Uint8Array;
  bSame: Uint8Array;
}

/** The diff of a and b; null when it takes more than `maxEdits` insertions and deletions. */
export function tokenDiff(a: readonly string[], b: readonly string[], maxEdits = MAX_DIFF_EDITS): TokenDiff | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxEdits);
  // v[k + off]: the furthest x reached on diagonal k = x − y; trace[d][k + d] its value after d edits.
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let edits = -1;
  for (let d = 0; d <= max && edits < 0; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[k - 1 + off] < v[k + 1 + off]) ? v[k + 1 + off] : v[k - 1 + off] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[k + off] = x;
      if (x >= n && y >= m) edits = d;
    }
    trace.push(v.slice(off - d, off + d + 1));
  }
  if (edits < 0) return null;
  const aSame = new Uint8Array(n);
  const bSame = new Uint8Array(m);
  let x = n;
  let y = m;
  for (let d = edits; d >= 0; d--) {
    const k = x - y;
    // The snake before this edit's end, back to where the edit left the previous diagonal.
    let fromX = 0;
    let fromY = 0;
    if (d > 0) {
      const prev = trace[d - 1];
      const down = k === -d || (k !== d && prev[k - 1 + d - 1] < prev[k + 1 + d - 1]);
      const fromK = down ? k + 1 : k - 1;
      fromX = prev[fromK + d - 1];
      fromY = fromX - fromK;
      // The edit itself: a step right (a deleted token) or down (an inserted one).
      const startX = down ? fromX : fromX + 1;
      const startY = startX - k;
      for (; x > startX && y > startY; x--, y--) {
        aSame[x - 1] = 1;
        bSame[y - 1] = 1;
      }
      x = fromX;
      y = fromY;
    } else {
      for (; x > 0 && y > 0; x--, y--) {
        aSame[x - 1] = 1;
        bSame[y - 1] = 1;
      }
    }
  }
  return { aSame, bSame };
}
