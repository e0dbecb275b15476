// Piscina runs the export a task names: the table lives in src/ (pleb/pleb-worker.ts), where its callers can name its type.
export * from "../src/pleb/pleb-worker.js";
