import type { Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { compressorFor } from "../corpus/open-input.js";
import { drained, openAtomic, writeError } from "../util/atomic.js";

/**
 * A corpus file being written: compressed as its name says (.gz, .zst), under a temporary
 * name until `commit`; `-` writes plain text to standard output. `zstdLevel`: 9 for what users
 * keep, lower for the work directory's parts, read back once.
 */
export class CorpusOutput {
  private readonly sink: Writable;
  private readonly done: Promise<void>;
  private readonly atomic: ReturnType<typeof openAtomic> | null;

  constructor(
    private readonly path: string,
    zstdLevel = 9,
  ) {
    this.atomic = path === "-" ? null : openAtomic(path);
    const target: Writable = this.atomic?.stream ?? process.stdout;
    const compressor: Transform | null = path === "-" ? null : compressorFor(path, zstdLevel);
    if (compressor === null) {
      this.sink = target;
      this.done = Promise.resolve();
    } else {
      this.sink = compressor;
      this.done = pipeline(compressor, target, { end: this.atomic !== null });
      // Awaited by commit; a failure meanwhile shows in `write` and must not go unhandled.
      this.done.catch(() => undefined);
    }
  }

  /** Writes bytes; resolves when the stream can take more (back-pressure). */
  async write(bytes: Uint8Array): Promise<void> {
    if (!this.sink.write(bytes)) await drained(this.sink).catch((err: unknown) => Promise.reject(writeError(this.path, err)));
  }

  /** Runs `body`, which writes into this output, then commits it, or aborts it if `body` fails. */
  async fill<T>(body: (output: CorpusOutput) => Promise<T>): Promise<T> {
    try {
      const result = await body(this);
      await this.commit();
      return result;
    } catch (err) {
      await this.abort();
      throw err;
    }
  }

  async commit(): Promise<void> {
    if (this.sink !== process.stdout && this.sink !== this.atomic?.stream) this.sink.end();
    await this.done.catch((err: unknown) => Promise.reject(writeError(this.path, err)));
    await this.atomic?.commit();
  }

  async abort(): Promise<void> {
    this.sink.destroy();
    await this.done.catch(() => undefined);
    await this.atomic?.abort();
  }
}
