import { afterAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeBatches } from "../helpers/batches.js";
import { CLI, removeTempDirs, tempDir } from "../helpers/cli.js";
import { spawn } from "node:child_process";

afterAll(removeTempDirs);

/** The shell lines of the guide's worked example: the first sh block of docs/supplementing.md. */
function exampleLines(): string[] {
  const section = readFileSync("docs/supplementing.md", "utf8");
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (block === null) throw new Error("no sh block in docs/supplementing.md");
  return block[1].trim().split("\n");
}

function run(args: string[], cwd: string): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stderr })));
}

const ids = (text: string) => [...text.matchAll(/<doc id="([^"]*)"/g)].map((m) => m[1]);

describe("docs/supplementing.md: the worked example", () => {
  it("runs the worked example as written: each batch cleaned against the base and the earlier batches", async () => {
    const dir = tempDir("vertdup-readme-");
    const [base, january, february] = writeBatches(dir, [60, 30, 30], 7, ["base.vert", "2026-01.vert", "2026-02.vert"]);
    const lines = exampleLines();
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      const [command, ...args] = line.split(/\s+/);
      expect(command).toBe("vertdup");
      const r = await run(args, dir);
      expect(r.stderr).not.toMatch(/error/);
      expect(r.status).toBe(0);
    }
    const baseIds = ids(readFileSync(base, "utf8"));
    const januaryIds = ids(readFileSync(january, "utf8"));
    const cleaned = ids(readFileSync(join(dir, "2026-01.clean.vert"), "utf8"));
    const removed = januaryIds.filter((id) => !cleaned.includes(id));
    // January loses its copies of the base (and of itself), and only January documents go.
    expect(removed.length).toBeGreaterThan(0);
    expect(cleaned.every((id) => januaryIds.includes(id))).toBe(true);
    const marked = readFileSync(join(dir, "2026-02.marked.vert"), "utf8");
    const dupOf = [...marked.matchAll(/dup_of="([^"]*)"/g)].map((m) => m[1]);
    expect(ids(marked)).toEqual(ids(readFileSync(february, "utf8")));
    // February is compared with the base and January: marks name old documents of both.
    expect(dupOf.some((id) => baseIds.includes(id))).toBe(true);
    expect(dupOf.some((id) => januaryIds.includes(id))).toBe(true);
  });
});
