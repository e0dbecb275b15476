import { createRequire } from "node:module";

/**
 * `require` for a CommonJS package that only some runs need (zstd-napi for .zst files,
 * cli-progress on a terminal): called where it is used, so that a run which never needs it
 * does not load it at start (README "Paragraph dedup": start-up).
 */
export const requireCjs = createRequire(import.meta.url);
