import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The WebAssembly kernels' bytes, compiled from their .wat (as `npm run build` does).
    globalSetup: ["scripts/compile-wat.mjs"],
    // fast-check's seed, fixed for every property test; a turn of the event loop after each test;
    // byte arrays compared with memcmp.
    setupFiles: ["test/helpers/fast-check-seed.ts", "test/helpers/yield-between-tests.ts", "test/helpers/byte-equality.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
