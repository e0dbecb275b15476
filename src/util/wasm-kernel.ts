/**
 * The WebAssembly kernels: each is a `.wat` text file beside the module that runs it,
 * compiled at build time (scripts/compile-wat.mjs, with wabt) into `X.wat.ts`, which holds
 * its bytes. Every kernel imports its memory as `e.m`. A kernel that does not compile or
 * instantiate in this runtime leaves its caller on the TypeScript reference loop (the loop
 * 6–22× slower, the command 1–1.6×: README "Development"); the coordinator says so once on stderr and in the manifest (`kernels`).
 */

/** The part of the WebAssembly API used here (the project's lib settings do not declare it). */
export interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports?: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => { buffer: ArrayBuffer };
}

/** The runtime's WebAssembly, undefined where there is none. */
export const webAssembly = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

export type WasmMemory = InstanceType<WasmApi["Memory"]>;

/** What runs a kernel's loop: "webassembly", or "typescript (why)". */
export type KernelStatus = string;

export class WasmKernel {
  /** undefined until first asked; then the module, or null with `failure` saying why. */
  private compiled: object | null | undefined;
  private failure = "";
  private reported = false;

  /**
   * @param name   the kernel's name in messages, the manifest and `VERTDUP_FAULT=kernel:<name>`
   * @param base64 its bytes (the `wasm` of its `.wat.ts`)
   * @param sharedMemory whether its imported memory is shared
   */
  constructor(
    readonly name: string,
    private readonly base64: string,
    private readonly sharedMemory = false,
  ) {}

  /** The compiled module (once per thread), or null when the TypeScript loop must run. */
  module(): object | null {
    if (this.compiled === undefined) {
      try {
        if (process.env.VERTDUP_FAULT === `kernel:${this.name}`) throw new Error("fault injected (VERTDUP_FAULT)");
        if (webAssembly === undefined) throw new Error("this runtime has no WebAssembly");
        const module = new webAssembly.Module(Buffer.from(this.base64, "base64"));
        // Instantiated once on a one-page memory: a runtime that compiles but cannot link
        // (a missing feature) is found here, not in the middle of a pass.
        new webAssembly.Instance(module, { e: { m: new webAssembly.Memory({ initial: 1, maximum: 1, shared: this.sharedMemory }) } });
        this.compiled = module;
      } catch (e) {
        this.failure = e instanceof Error ? e.message : String(e);
        this.compiled = null;
      }
    }
    return this.compiled;
  }

  /** A memory of `pages` 64 KiB pages for `instantiate`; the kernel must be available. */
  memory(pages: number): WasmMemory {
    return new (this.available().api.Memory)({ initial: pages });
  }

  /** The kernel's exports over `memory`; the kernel must be available (`module()` not null). */
  instantiate(memory: WasmMemory): Record<string, unknown> {
    const { api, module } = this.available();
    return new api.Instance(module, { e: { m: memory } }).exports;
  }

  private available(): { api: WasmApi; module: object } {
    const module = this.module();
    if (module === null || webAssembly === undefined) throw new Error(`the WebAssembly kernel ${this.name} is unavailable (${this.failure})`);
    return { api: webAssembly, module };
  }

  /**
   * On the coordinator, before the pass that uses the kernel: its status for the manifest.
   * A fallback is told once per process through `warn` (the workers, which compile the same
   * bytes in the same runtime, fall back silently).
   */
  report(warn: (message: string) => void): KernelStatus {
    if (this.module() !== null) return "webassembly";
    if (!this.reported) {
      this.reported = true;
      warn(`warning: the WebAssembly kernel ${this.name} is unavailable (${this.failure}): running its slower TypeScript loop`);
    }
    return `typescript (${this.failure})`;
  }
}
