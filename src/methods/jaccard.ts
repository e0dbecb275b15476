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

/** Sorts `values` ascending in place and moves its distinct values to the front; returns how many. */
export function sortUnique(values: Float64Array): number {
  values.sort();
  let n = 0;
  for (let i = 0; i < values.length; i++) if (i === 0 || values[i] !== values[i - 1]) values[n++] = values[i];
  return n;
}

/** The distinct values of a list, sorted ascending. */
export function sortedSet(values: ArrayLike<number>): Float64Array {
  const sorted = Float64Array.from(values);
  return sorted.slice(0, sortUnique(sorted));
}
