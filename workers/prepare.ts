// Piscina runs the export a task names: the table lives in src/ (sketch/prepare-worker.ts), where its callers can name its type.
export * from "../src/sketch/prepare-worker.js";
