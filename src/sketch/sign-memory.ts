/**
 * The sign pass's shared memory: the vector cache's float32 term vectors and one scratch
 * region per concurrent task, in one shared WebAssembly.Memory when the runtime has
 * WebAssembly SIMD (else a plain SharedArrayBuffer with the same layout).
 *
 * Why one memory: the accumulation kernel (accumulate-wasm.ts) can then read a cached vector
 * where it lies. Copying each 4 KiB vector into the kernel's own memory first cost more than
 * the arithmetic (a copy per document and term, from a cache of up to 1 GiB).
 *
 * Layout, all offsets in bytes:
 *   [0, 4·regions)                 lease flags, Int32 (1 = a task holds the region)
 *   region r at regionBase + r·12·bits: float64 accumulators [8·bits], float32 staging [4·bits]
 *   vectorBase + s·4·bits          the vector of cache slot s, for s < count
 * The vectors start on a 64 KiB boundary so that a 1024-bit vector (4 KiB) lies within one
 * memory page: one TLB entry and an uninterrupted hardware prefetch per vector.
 */

import { webAssembly } from "../util/wasm-module.js";

const PAGE = 65536;
/** WebAssembly (32-bit) memories hold at most 65536 pages of 64 KiB. */
const MAX_PAGES = 65536;

/** What a worker needs to wrap the same memory (structured clone shares, never copies, it). */
export interface SignMemoryParts {
  bits: number;
  regions: number;
  count: number;
  /** The shared WebAssembly.Memory, or null when its buffer is a plain SharedArrayBuffer. */
  memory: object | null;
  buffer: SharedArrayBuffer;
}

/** A leased scratch region: one task's accumulators and staging vector. */
export interface Region {
  readonly accOffset: number;
  readonly stagingOffset: number;
  readonly acc: Float64Array;
  readonly staging: Float32Array;
  release(): void;
}

const align = (n: number, to: number) => Math.ceil(n / to) * to;

export class SignMemory {
  readonly bits: number;
  readonly regions: number;
  /** Number of cache slots. */
  readonly count: number;
  readonly memory: object | null;
  readonly buffer: SharedArrayBuffer;
  readonly regionBase: number;
  readonly vectorBase: number;
  /** All cached vectors back to back; slot s at [s·bits, (s+1)·bits). */
  readonly vectors: Float32Array;
  private readonly leases: Int32Array;

  private constructor(parts: SignMemoryParts) {
    this.bits = parts.bits;
    this.regions = parts.regions;
    this.count = parts.count;
    this.memory = parts.memory;
    this.buffer = parts.buffer;
    const layout = SignMemory.layout(parts.bits, parts.regions, parts.count);
    if (parts.buffer.byteLength < layout.bytes) throw new RangeError("SignMemory: buffer smaller than its layout");
    this.regionBase = layout.regionBase;
    this.vectorBase = layout.vectorBase;
    this.leases = new Int32Array(parts.buffer, 0, parts.regions);
    this.vectors = new Float32Array(parts.buffer, layout.vectorBase, parts.count * parts.bits);
  }

  private static layout(bits: number, regions: number, count: number): { regionBase: number; vectorBase: number; bytes: number } {
    const regionBase = align(4 * regions, 64);
    const vectorBase = align(regionBase + regions * 12 * bits, PAGE);
    return { regionBase, vectorBase, bytes: vectorBase + count * bits * 4 };
  }

  /**
   * Memory for `count` vectors of `bits` float32 components and `regions` scratch regions
   * (one per task that may run at once). A shared WebAssembly.Memory when it can be made.
   */
  static create(bits: number, count: number, regions: number): SignMemory {
    if (!Number.isInteger(bits) || bits <= 0 || bits % 4 !== 0) throw new RangeError(`invalid bits ${bits}`);
    if (!Number.isInteger(regions) || regions < 1) throw new RangeError(`invalid region count ${regions}`);
    const { bytes } = SignMemory.layout(bits, regions, count);
    const pages = Math.max(1, Math.ceil(bytes / PAGE));
    let memory: { buffer: SharedArrayBuffer } | null = null;
    if (webAssembly !== undefined && pages <= MAX_PAGES) {
      try {
        memory = new webAssembly.Memory({ initial: pages, maximum: pages, shared: true }) as unknown as { buffer: SharedArrayBuffer };
      } catch {
        memory = null;
      }
    }
    const buffer = memory?.buffer ?? new SharedArrayBuffer(pages * PAGE);
    return new SignMemory({ bits, regions, count, memory, buffer });
  }

  static fromShared(parts: SignMemoryParts): SignMemory {
    return new SignMemory(parts);
  }

  toShared(): SignMemoryParts {
    return { bits: this.bits, regions: this.regions, count: this.count, memory: this.memory, buffer: this.buffer };
  }

  /** Byte offset of the vector of cache slot `slot`. */
  vectorOffset(slot: number): number {
    return this.vectorBase + slot * this.bits * 4;
  }

  /** A free scratch region, held until release(); null when every region is held. */
  lease(): Region | null {
    for (let r = 0; r < this.regions; r++) {
      if (Atomics.compareExchange(this.leases, r, 0, 1) !== 0) continue;
      const accOffset = this.regionBase + r * 12 * this.bits;
      const stagingOffset = accOffset + 8 * this.bits;
      return {
        accOffset,
        stagingOffset,
        acc: new Float64Array(this.buffer, accOffset, this.bits),
        staging: new Float32Array(this.buffer, stagingOffset, this.bits),
        release: () => void Atomics.store(this.leases, r, 0),
      };
    }
    return null;
  }
}
