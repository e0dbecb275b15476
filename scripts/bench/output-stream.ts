import { createWriteStream } from "node:fs";
import { createGzip } from "node:zlib";
import type { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { CompressStream } from "zstd-napi";
import { compressionOf } from "../../src/corpus/open-input.js";

/** A text sink for a .vert, .vert.gz or .vert.zst file with back-pressure. */
export class TextSink {
  private readonly head: Writable;
  private readonly done: Promise<void>;

  constructor(path: string) {
    const file = createWriteStream(path);
    const kind = compressionOf(path);
    if (kind === "none") {
      this.head = file;
      this.done = new Promise((resolve, reject) => file.once("finish", resolve).once("error", reject));
    } else {
      // gzip level 1 and zstd level 3: generating, not archiving; the reader cost is what matters.
      const codec = kind === "gzip" ? createGzip({ level: 1 }) : new CompressStream({ compressionLevel: 3 });
      this.head = codec;
      this.done = pipeline(codec, file);
    }
  }

  /** Writes text (a string or UTF-8 bytes); resolves when the stream can take more. */
  async write(text: string | Uint8Array): Promise<void> {
    if (!this.head.write(text)) await new Promise<void>((r) => this.head.once("drain", r));
  }

  async close(): Promise<void> {
    this.head.end();
    await this.done;
  }
}
