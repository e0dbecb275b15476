// Piscina runs the export a task names: the table lives in src/ (paragraph-dedup/paragraphs-worker.ts), where its callers can name its type.
export * from "../src/paragraph-dedup/paragraphs-worker.js";
