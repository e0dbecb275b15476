// Compiles every WebAssembly kernel src/**/X.wat into X.wat.ts beside it (its bytes, base64),
// the module that util/wasm-kernel.ts loads. Runs before tsc in `npm run build` and before
// the tests (vitest globalSetup), so the bytes always come from the text in the repository.
// Plain JavaScript: it must run before anything is compiled. wabt is a development dependency.
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import wabtInit from "wabt";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

function* watFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* watFiles(path);
    else if (entry.name.endsWith(".wat")) yield path;
  }
}

export async function compileKernels() {
  const wabt = await wabtInit();
  // The features the kernels use: SIMD, and shared memories (threads) for accumulate.wat.
  const features = { simd: true, threads: true };
  for (const path of watFiles(join(root, "src"))) {
    const module = wabt.parseWat(relative(root, path), readFileSync(path, "utf8"), features);
    let bytes;
    try {
      module.validate(features);
      bytes = module.toBinary({}).buffer;
    } finally {
      module.destroy();
    }
    const text = `// Generated from ${basename(path)} by scripts/compile-wat.mjs: do not edit.\nexport const wasm = "${Buffer.from(bytes).toString("base64")}";\n`;
    const out = `${path}.ts`;
    if (existsSync(out) && readFileSync(out, "utf8") === text) continue;
    // Written aside and renamed: concurrent builds and test runs never read half a file.
    writeFileSync(`${out}.${process.pid}.tmp`, text);
    renameSync(`${out}.${process.pid}.tmp`, out);
  }
}

/** vitest globalSetup. */
export default compileKernels;

if (process.argv[1] === fileURLToPath(import.meta.url)) await compileKernels();
