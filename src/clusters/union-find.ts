/**
 * Disjoint sets over dense indices 0..n-1, with path halving and union by size. Memory is
 * two typed arrays of n entries (n = documents that have a pair, not the corpus).
 */
export class UnionFind {
  private readonly parent: Uint32Array;
  private readonly size: Uint32Array;

  constructor(n: number) {
    this.parent = new Uint32Array(n);
    this.size = new Uint32Array(n).fill(1);
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
    let ra = this.find(a);
    let rb = this.find(b);
    if (ra === rb) return;
    if (this.size[ra] < this.size[rb]) [ra, rb] = [rb, ra];
    this.parent[rb] = ra;
    this.size[ra] += this.size[rb];
  }
}
