/**
 * The sign pass's shared memory: the vector cache's term vectors (int8 or float32 components,
 * random-vectors.ts) and one scratch region per concurrent task, in one shared
 * WebAssembly.Memory when the runtime has WebAssembly SIMD (else a plain SharedArrayBuffer
 * with the same layout).
 *
 * Why one memory: the accumulation kernel (accumulate-wasm.ts) can then read a cached vector
 * where it lies. Copying each 4 KiB vector into the kernel's own memory first cost more than
 * the arithmetic (a copy per document and term, from a cache of up to 1.5 GiB of float32 vectors).
 *
 * Layout, all offsets in bytes:
 *   [0, 4·regions)                 lease flags, Int32 (1 = a task holds the region)
 *   region r at regionBase + r·regionBytes: accumulators [8·bits] (float64, or int32 in the
 *                                  first 4·bits), staging [4·bits] (one vector, c·bits bytes),
 *                                  block [BLOCK_BYTES] (documents queued for acc8block)
 *   vectorBase + s·c·bits          the vector of cache slot s, for s < count
 * with c bytes per component (1 for int8, 4 for float32). The vectors start on a 64 KiB
 * boundary so that a 1024-bit vector (1 or 4 KiB) lies within one memory page: one TLB entry
 * and an uninterrupted hardware prefetch per vector.
 */

import type { Projection } from "../core/options.js";
import { webAssembly } from "../util/wasm-kernel.js";

const PAGE = 65536;
/**
 * Bytes of a region's block of documents signed together (Projections.queue): the (vector,
 * weight) lists, extra sums and signatures of about 100,000 (document, term) pairs, a shard of
 * gen-100000's 61,000 in one block.
 */
export const BLOCK_BYTES = 1 << 20;
/** WebAssembly (32-bit) memories hold at most 65536 pages of 64 KiB. */
const MAX_PAGES = 65536;

/** What a worker needs to wrap the same memory (structured clone shares, never copies, it). */
export interface SignMemoryParts {
  projection: Projection;
  bits: number;
  regions: number;
  count: number;
  /** The shared WebAssembly.Memory, or null when its buffer is a plain SharedArrayBuffer. */
  memory: object | null;
  buffer: SharedArrayBuffer;
}

/** A leased scratch region: one task's accumulators (float64 or int32 views of one place) and staging vector. */
export interface Region {
  readonly accOffset: number;
  readonly stagingOffset: number;
  readonly blockOffset: number;
  readonly acc: Float64Array;
  readonly acc32: Int32Array;
  readonly staging: TermVector;
  /** BLOCK_BYTES at blockOffset, as int32. */
  readonly block: Int32Array;
  release(): void;
}

/** A term vector's components as its projection stores them. */
export type TermVector = Float32Array | Int8Array;

/** Bytes per component of a projection. */
function componentBytes(projection: Projection): number {
  return projection === "int8" ? 1 : 4;
}

/** An array of `length` components of `projection` over `buffer` at `byteOffset`. */
function termVectorArray(projection: Projection, length: number, buffer: ArrayBufferLike, byteOffset: number): TermVector {
  return projection === "int8" ? new Int8Array(buffer, byteOffset, length) : new Float32Array(buffer, byteOffset, length);
}

const align = (n: number, to: number) => Math.ceil(n / to) * to;

/** Bytes of one scratch region: accumulators, staging vector, block. */
const regionBytes = (bits: number) => 12 * bits + BLOCK_BYTES;

export class SignMemory {
  readonly projection: Projection;
  readonly bits: number;
  readonly regions: number;
  /** Number of cache slots. */
  readonly count: number;
  readonly memory: object | null;
  readonly buffer: SharedArrayBuffer;
  readonly regionBase: number;
  readonly vectorBase: number;
  /** All cached vectors back to back; slot s at [s·bits, (s+1)·bits). */
  readonly vectors: TermVector;
  /** Bytes per component. */
  private readonly component: number;
  private readonly leases: Int32Array;

  private constructor(parts: SignMemoryParts) {
    this.projection = parts.projection;
    this.component = componentBytes(parts.projection);
    this.bits = parts.bits;
    this.regions = parts.regions;
    this.count = parts.count;
    this.memory = parts.memory;
    this.buffer = parts.buffer;
    const layout = SignMemory.layout(this.component, parts.bits, parts.regions, parts.count);
    if (parts.buffer.byteLength < layout.bytes) throw new RangeError("SignMemory: buffer smaller than its layout");
    this.regionBase = layout.regionBase;
    this.vectorBase = layout.vectorBase;
    this.leases = new Int32Array(parts.buffer, 0, parts.regions);
    this.vectors = termVectorArray(parts.projection, parts.count * parts.bits, parts.buffer, layout.vectorBase);
  }

  private static layout(component: number, bits: number, regions: number, count: number): { regionBase: number; vectorBase: number; bytes: number } {
    const regionBase = align(4 * regions, 64);
    const vectorBase = align(regionBase + regions * regionBytes(bits), PAGE);
    return { regionBase, vectorBase, bytes: vectorBase + count * bits * component };
  }

  /**
   * Memory for `count` vectors of `bits` components of `projection` and `regions` scratch
   * regions (one per task that may run at once). A shared WebAssembly.Memory when it can be made.
   */
  static create(projection: Projection, bits: number, count: number, regions: number): SignMemory {
    if (!Number.isInteger(bits) || bits <= 0 || bits % 4 !== 0) throw new RangeError(`invalid bits ${bits}`);
    if (!Number.isInteger(regions) || regions < 1) throw new RangeError(`invalid region count ${regions}`);
    const { bytes } = SignMemory.layout(componentBytes(projection), bits, regions, count);
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
    return new SignMemory({ projection, bits, regions, count, memory, buffer });
  }

  static fromShared(parts: SignMemoryParts): SignMemory {
    return new SignMemory(parts);
  }

  toShared(): SignMemoryParts {
    return { projection: this.projection, bits: this.bits, regions: this.regions, count: this.count, memory: this.memory, buffer: this.buffer };
  }

  /** Byte offset of the vector of cache slot `slot`. */
  vectorOffset(slot: number): number {
    return this.vectorBase + slot * this.bits * this.component;
  }

  /** A free scratch region, held until release(); null when every region is held. */
  lease(): Region | null {
    for (let r = 0; r < this.regions; r++) {
      if (Atomics.compareExchange(this.leases, r, 0, 1) !== 0) continue;
      const accOffset = this.regionBase + r * regionBytes(this.bits);
      const stagingOffset = accOffset + 8 * this.bits;
      const blockOffset = stagingOffset + 4 * this.bits;
      return {
        accOffset,
        stagingOffset,
        blockOffset,
        block: new Int32Array(this.buffer, blockOffset, BLOCK_BYTES / 4),
        acc: new Float64Array(this.buffer, accOffset, this.bits),
        acc32: new Int32Array(this.buffer, accOffset, this.bits),
        staging: termVectorArray(this.projection, this.bits, this.buffer, stagingOffset),
        release: () => void Atomics.store(this.leases, r, 0),
      };
    }
    return null;
  }
}
