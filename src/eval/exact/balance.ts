/**
 * Splits rows [0, n) into at most `parts` consecutive ranges of about equal work when row i
 * costs cost(i) (e.g. n − 1 − i comparisons in the upper triangle), so that the pool's
 * workers finish together.
 */
export function balancedRanges(n: number, parts: number, cost: (i: number) => number): [number, number][] {
  let total = 0;
  for (let i = 0; i < n; i++) total += cost(i);
  const out: [number, number][] = [];
  let from = 0;
  let done = 0;
  for (let i = 0; i < n; i++) {
    done += cost(i);
    if (done * parts >= total * (out.length + 1) || i === n - 1) {
      out.push([from, i + 1]);
      from = i + 1;
    }
  }
  return out;
}
