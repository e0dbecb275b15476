/** Copies `parts` one after another into `out`, whose length is their total. */
function concatInto<T extends Uint32Array | Float64Array>(parts: readonly T[], out: T): T {
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const total = (parts: readonly ArrayLike<number>[]) => parts.reduce((n, p) => n + p.length, 0);

/** Concatenates typed arrays (per-shard parts, per-task results) in the given order. */
export function concatU32(parts: readonly Uint32Array[]): Uint32Array {
  return concatInto(parts, new Uint32Array(total(parts)));
}

export function concatF64(parts: readonly Float64Array[]): Float64Array {
  return concatInto(parts, new Float64Array(total(parts)));
}

/**
 * Bytes that can be transferred to a worker as they are: `bytes` when it spans its whole
 * memory, else a copy (a view of a larger buffer would take the rest along, or detach it).
 */
export function ownedBytes(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes;
  const own = new Uint8Array(bytes.length);
  own.set(bytes);
  return own;
}

type Growable = Float64Array | Uint32Array | Int32Array | Uint8Array;

/** A typed array that grows by doubling; `values.subarray(0, length)` holds what was pushed. */
class GrowableArray<T extends Growable> {
  length = 0;

  constructor(public values: T, private readonly make: (n: number) => T) {}

  /** Room for `n` more values at `length`; returns the (possibly new) backing array. */
  reserve(n: number): T {
    if (this.length + n > this.values.length) {
      const grown = this.make(Math.max(2 * this.values.length, this.length + n));
      grown.set(this.values.subarray(0, this.length));
      this.values = grown;
    }
    return this.values;
  }

  append(values: ArrayLike<number>): void {
    this.reserve(values.length).set(values, this.length);
    this.length += values.length;
  }

  push(x: number): void {
    if (this.length === this.values.length) this.reserve(1);
    this.values[this.length++] = x;
  }

  push2(x: number, y: number): void {
    const v = this.reserve(2);
    v[this.length++] = x;
    v[this.length++] = y;
  }

  /** The pushed values (a view). */
  view(): T {
    return this.values.subarray(0, this.length) as T;
  }
}

export const growableF64 = (capacity = 1 << 16) => new GrowableArray(new Float64Array(capacity), (n) => new Float64Array(n));
export const growableU32 = (capacity = 1 << 16) => new GrowableArray(new Uint32Array(capacity), (n) => new Uint32Array(n));
export const growableI32 = (capacity = 1 << 16) => new GrowableArray(new Int32Array(capacity), (n) => new Int32Array(n));
export const growableU8 = (capacity = 1 << 16) => new GrowableArray(new Uint8Array(capacity), (n) => new Uint8Array(n));
export type { GrowableArray };
