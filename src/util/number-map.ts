/**
 * An open-addressing hash table from an integer key < 2^53 (a term hash, a pair index) to a
 * float64 value, in typed arrays: no per-entry objects, no 2^24-entry limit of a JavaScript
 * Map, and its buffers can be SharedArrayBuffers read by every worker without copying.
 * Keys are stored as key + 1 so that 0 marks an empty slot.
 */
export class NumberMap {
  private keys: Float64Array;
  private values: Float64Array;
  private mask: number;
  private count = 0;

  constructor(capacity = 1024, shared = false) {
    const size = NumberMap.sizeFor(capacity);
    const alloc = (n: number) => (shared ? new SharedArrayBuffer(n * 8) : new ArrayBuffer(n * 8));
    this.keys = new Float64Array(alloc(size));
    this.values = new Float64Array(alloc(size));
    this.mask = size - 1;
  }

  /** A power of two that keeps the load factor at most 1/2. */
  private static sizeFor(capacity: number): number {
    let size = 16;
    while (size < capacity * 2) size *= 2;
    return size;
  }

  get size(): number {
    return this.count;
  }

  private slot(key: number): number {
    // Low and high halves mixed: hashes are already uniform, this only spreads clusters.
    let i = ((key >>> 0) ^ Math.imul(Math.floor(key / 0x1_0000_0000), 0x9e3779b1)) & this.mask;
    const stored = key + 1;
    const keys = this.keys;
    for (;;) {
      const k = keys[i];
      if (k === stored || k === 0) return i;
      i = (i + 1) & this.mask;
    }
  }

  get(key: number): number | undefined {
    const i = this.slot(key);
    return this.keys[i] === 0 ? undefined : this.values[i];
  }

  /** Adds `delta` to the value of `key` (inserting it at 0 first). */
  add(key: number, delta: number): void {
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const i = this.slot(key);
    if (this.keys[i] === 0) {
      this.keys[i] = key + 1;
      this.count++;
    }
    this.values[i] += delta;
  }

  set(key: number, value: number): void {
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const i = this.slot(key);
    if (this.keys[i] === 0) {
      this.keys[i] = key + 1;
      this.count++;
    }
    this.values[i] = value;
  }

  /** Removes every entry, keeping the table's size. */
  clear(): void {
    this.keys.fill(0);
    this.count = 0;
  }

  *entries(): Generator<[number, number]> {
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== 0) yield [keys[i] - 1, this.values[i]];
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const shared = oldKeys.buffer instanceof SharedArrayBuffer;
    const size = oldKeys.length * 2;
    const alloc = (n: number) => (shared ? new SharedArrayBuffer(n * 8) : new ArrayBuffer(n * 8));
    this.keys = new Float64Array(alloc(size));
    this.values = new Float64Array(alloc(size));
    this.mask = size - 1;
    for (let i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] !== 0) {
        const j = this.slot(oldKeys[i] - 1);
        this.keys[j] = oldKeys[i];
        this.values[j] = oldValues[i];
      }
    }
  }

  /** The table's buffers, to rebuild it in another thread with `fromShared`. */
  toShared(): SharedNumberMap {
    return { keys: this.keys, values: this.values, count: this.count };
  }

  static fromShared(parts: SharedNumberMap): NumberMap {
    const t = Object.create(NumberMap.prototype) as NumberMap;
    t.keys = parts.keys;
    t.values = parts.values;
    t.mask = parts.keys.length - 1;
    t.count = parts.count;
    return t;
  }
}

export interface SharedNumberMap {
  keys: Float64Array;
  values: Float64Array;
  count: number;
}
