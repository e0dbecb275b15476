// Piscina runs the export a task names: the table lives in src/ (eval/exact/reference-worker.ts), where its callers can name its type.
export * from "../src/eval/exact/reference-worker.js";
