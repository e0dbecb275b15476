/**
 * A token-level diff of two short token lists (the report shows at most a few hundred tokens
 * of a document): a longest common subsequence by dynamic programming, O(|a|·|b|) time and
 * memory, which for 200 × 200 tokens is 40,000 cells.
 */

/** Longest token lists `tokenDiff` accepts: beyond, the table would outgrow a report's needs. */
export const MAX_DIFF_TOKENS = 2048;

/** For each token of `a` and of `b`: 1 when it is part of the common subsequence, 0 when it differs. */
export interface TokenDiff {
  aSame: Uint8Array;
  bSame: Uint8Array;
}

export function tokenDiff(a: readonly string[], b: readonly string[]): TokenDiff {
  if (a.length > MAX_DIFF_TOKENS || b.length > MAX_DIFF_TOKENS) throw new RangeError(`token diff of ${a.length} × ${b.length} tokens: at most ${MAX_DIFF_TOKENS} each`);
  const n = a.length;
  const m = b.length;
  const w = m + 1;
  // lcs[i·w + j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs = new Uint16Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  const aSame = new Uint8Array(n);
  const bSame = new Uint8Array(m);
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (a[i] === b[j]) {
      aSame[i++] = 1;
      bSame[j++] = 1;
    } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) i++;
    else j++;
  }
  return { aSame, bSame };
}
