/**
 * Disjoint sets over 0..n-1 (n < 2^31) in one Int32Array (4 bytes per element), with path
 * halving.
 * A union links the larger root under the smaller, so every parent is at most its child
 * and a set's root is its smallest element: in corpus order, the cluster's first document.
 */
export class UnionFind {
  readonly parent: Int32Array;

  constructor(n: number) {
    this.parent = new Int32Array(n);
    for (let i = 0; i < n; i++) this.parent[i] = i;
  }

  find(x: number): number {
    const parent = this.parent;
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  }

  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra < rb) this.parent[rb] = ra;
    else if (rb < ra) this.parent[ra] = rb;
  }

  /**
   * Points every element straight at its root (one pass in increasing order: a parent is
   * smaller than its child, so it already points at the root) and returns the array.
   */
  roots(): Int32Array {
    const parent = this.parent;
    for (let i = 0; i < parent.length; i++) parent[i] = parent[parent[i]];
    return parent;
  }
}
