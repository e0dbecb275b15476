import { gzipSync } from "node:zlib";
import { compress } from "zstd-napi";

const BLOCK = 16 << 20;

/**
 * A decompression bomb: `head`, then `blocks` × 16 MiB of one repeated byte, compressed into
 * a few kilobytes (one frame or gzip member per block, the content repeated by repeating the
 * compressed block, so that making it costs almost nothing).
 */
export function bomb(kind: "gz" | "zst", head: string, blocks: number, byte = "a"): Buffer {
  const pack = (b: Buffer) => (kind === "gz" ? gzipSync(b, { level: 1 }) : compress(b));
  const block = pack(Buffer.alloc(BLOCK, byte));
  return Buffer.concat([pack(Buffer.from(head)), ...Array.from({ length: blocks }, () => block)]);
}

export const BOMB_BLOCK = BLOCK;
