import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The WebAssembly kernels' bytes, compiled from their .wat (as `npm run build` does).
    globalSetup: ["scripts/compile-wat.mjs"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
