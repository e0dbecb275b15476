import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const config = require("../../.dependency-cruiser.cjs") as { forbidden: { name: string; from: { path?: string }; to: { path?: string } }[] };

/** The layers docs/ARCHITECTURE.md names, bottom up, each a list of top-level units of src/. */
function documentedLayers(): string[][] {
  const doc = readFileSync(new URL("../../docs/ARCHITECTURE.md", import.meta.url), "utf8");
  const line = doc.split("\n").find((l) => l.startsWith("Layers (bottom up): "));
  if (line === undefined) throw new Error("docs/ARCHITECTURE.md has no 'Layers (bottom up):' line");
  return line.slice("Layers (bottom up): ".length).split(" → ").map((layer) => layer.split(", "));
}

describe("the layering", () => {
  it("that dependency-cruiser checks is the one docs/ARCHITECTURE.md gives", () => {
    const layers = documentedLayers();
    const upward = config.forbidden.filter((r) => r.name.startsWith("no-upward-from-"));
    expect(upward.map((r) => r.name)).toEqual(layers.slice(0, -1).map((l) => `no-upward-from-${l[0]}`));
    // Each rule's `to` names every layer above its `from`.
    upward.forEach((rule, i) => {
      const above = layers.slice(i + 1).flat();
      for (const unit of ["core", "util", "methods", "cli"]) {
        const target = `src/${unit}/x.ts`;
        expect(new RegExp(rule.to.path!).test(target), `${rule.name} → ${unit}`).toBe(above.includes(unit));
      }
    });
  });

  it("covers every top-level unit of src/", () => {
    const units = new Set(documentedLayers().flat());
    const present = readdirSync(new URL("../../src", import.meta.url)).filter((n) => !n.endsWith(".wat"));
    expect(present.filter((n) => !units.has(n))).toEqual([]);
  });
});

describe("the executors", () => {
  it("name no method: local and Slurm run any pipeline the registry gives them", async () => {
    const { METHOD_NAMES } = await import("../../src/core/method-options.js");
    const files: string[] = [];
    const walk = (dir: URL) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(new URL(`${e.name}/`, dir));
        else if (e.name.endsWith(".ts")) files.push(readFileSync(new URL(e.name, dir), "utf8"));
      }
    };
    walk(new URL("../../src/executor/", import.meta.url));
    for (const name of METHOD_NAMES) expect(files.filter((text) => text.includes(`"${name}"`)), name).toEqual([]);
  });
});

describe("the method registry", () => {
  it("is the only place that tells methods apart: no test of a method's name outside methods/", async () => {
    const { METHOD_NAMES } = await import("../../src/core/method-options.js");
    const names = METHOD_NAMES.join("|");
    const test = new RegExp(`(===|!==)\\s*"(${names})"|"(${names})"\\s*(===|!==)|case\\s+"(${names})"`);
    const offending: string[] = [];
    const walk = (dir: URL, path: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) {
          if (path === "" && e.name === "methods") continue;
          walk(new URL(`${e.name}/`, dir), `${path}${e.name}/`);
        } else if (e.name.endsWith(".ts")) {
          readFileSync(new URL(e.name, dir), "utf8")
            .split("\n")
            .forEach((line, k) => {
              if (/method/i.test(line) && test.test(line)) offending.push(`src/${path}${e.name}:${k + 1}: ${line.trim()}`);
            });
        }
      }
    };
    walk(new URL("../../src/", import.meta.url), "");
    expect(offending).toEqual([]);
  });
});
