/**
 * Jaccard resemblance |A∩B| / |A∪B| of two sorted sets without repeats, given as the
 * ranges [aFrom, aTo) and [bFrom, bTo) of `values` (they may be two arrays). 0 for two
 * empty sets.
 */
export function sortedJaccard(
  a: ArrayLike<number>, aFrom: number, aTo: number,
  b: ArrayLike<number>, bFrom: number, bTo: number,
): number {
  let i = aFrom;
  let j = bFrom;
  let shared = 0;
  while (i < aTo && j < bTo) {
    const x = a[i];
    const y = b[j];
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  const union = aTo - aFrom + (bTo - bFrom) - shared;
  return union === 0 ? 0 : shared / union;
}

/** Jaccard from the sizes of two sets and of their intersection. */
export function jaccardOfCounts(sizeA: number, sizeB: number, shared: number): number {
  const union = sizeA + sizeB - shared;
  return union === 0 ? 0 : shared / union;
}

/** The distinct values of a list, sorted ascending. */
export function sortedSet(values: readonly number[]): Float64Array {
  const sorted = Float64Array.from(values).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i];
  return sorted.slice(0, n);
}
