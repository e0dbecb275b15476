import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The WebAssembly kernels' bytes, compiled from their .wat (as `npm run build` does).
    globalSetup: ["scripts/compile-wat.mjs"],
    // fast-check's seed, fixed for every property test; a turn of the event loop after each test;
    // byte arrays compared with memcmp.
    setupFiles: ["test/helpers/fast-check-seed.ts", "test/helpers/yield-between-tests.ts", "test/helpers/byte-equality.ts"],
    // Two test files at once, also on a 2-core machine (vitest would take one there): many
    // tests wait on child processes or on the Slurm test cluster, not on the CPU.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
