import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI_REFERENCE, renderCliReference } from "../../scripts/docs/cli-reference.js";

describe("docs/cli.md", () => {
  let fresh = "";
  beforeAll(async () => {
    fresh = await renderCliReference();
  });

  it("is the built CLI's --help of every command (else: npm run build && npm run docs:cli)", async () => {
    const stored = readFileSync(CLI_REFERENCE, "utf8");
    expect(stored === fresh, `${CLI_REFERENCE} is stale: run \`npm run build && npm run docs:cli\` and commit it`).toBe(true);
  });

  it("covers every command, each with an example", async () => {
    const text = fresh;
    for (const c of ["run", "calibrate", "prepare", "pleb", "clean", "short-long", "paragraphs", "similarity", "hamming-full", "compare", "slurm", "slurm run", "slurm paragraphs", "slurm status"]) {
      const section = text.split(`## vertdup ${c}\n`)[1]?.split("\n## ")[0];
      expect(section, c).toBeDefined();
      expect(section, `${c} --help shows an example`).toContain("Examples:");
    }
    expect(text).not.toMatch(/\(00\d\)|#\d/);
  });
});
