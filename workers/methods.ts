// Piscina runs the export a task names: the table lives in src/ (methods/sets/methods-worker.ts), where its callers can name its type.
export * from "../src/methods/sets/methods-worker.js";
