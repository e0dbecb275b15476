import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Options } from "yargs";
import { OPTIONS, plebOptionsFrom, withOptions, type OptionName } from "../src/cli/options.js";
import { VertdupError } from "../src/core/errors.js";

const NUMERIC = (Object.keys(OPTIONS) as OptionName[]).filter((name) => (OPTIONS[name] as Options).type === "number");

function check(name: OptionName, value: unknown, argv: Record<string, unknown> = {}): void {
  const o = OPTIONS[name] as { check?: (name: string, value: never, argv: Record<string, unknown>) => void };
  o.check?.(name, value as never, argv);
}

describe("the option schema", () => {
  it("every numeric option has a check, and it refuses what yargs makes of a non-number", () => {
    for (const name of NUMERIC) {
      expect(OPTIONS[name]).toHaveProperty("check");
      for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1e300, 1e300]) {
        expect(() => check(name, bad)).toThrow(VertdupError);
        expect(() => check(name, bad)).toThrow(`--${name} `);
      }
    }
  });

  it("every default passes its own check", () => {
    for (const name of Object.keys(OPTIONS) as OptionName[]) {
      const value = (OPTIONS[name] as { default?: unknown }).default;
      if (value !== undefined) expect(() => check(name, value)).not.toThrow();
    }
  });

  it("--shift-count is bounded by 4 × --bits when bits are given", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1024 }), fc.integer({ min: 0, max: 5000 }), (words, shifts) => {
        const bits = 64 * words;
        const ok = shifts <= 4 * bits;
        if (ok) expect(() => check("shift-count", shifts, { bits })).not.toThrow();
        else expect(() => check("shift-count", shifts, { bits })).toThrow(`--shift-count must be an integer from 0 to ${4 * bits}`);
      }),
    );
  });

  it("--bits: exactly the multiples of 64 up to 65536", () => {
    fc.assert(
      fc.property(fc.integer({ min: -100, max: 70_000 }), (bits) => {
        const ok = bits >= 64 && bits % 64 === 0 && bits <= 65_536;
        if (ok) expect(() => check("bits", bits)).not.toThrow();
        else expect(() => check("bits", bits)).toThrow(VertdupError);
      }),
    );
  });
});

describe("options that another option's value leaves without effect", () => {
  async function parse(args: string[]): Promise<Record<string, unknown>> {
    const { default: yargs } = await import("yargs");
    const y = withOptions(yargs(args).exitProcess(false).fail(false).strict(), ["method", "verify", "cosine-threshold", "pairs", "pairs-limit", "estimate-recall", "sample", "target-recall"]);
    return (await y.parseAsync()) as Record<string, unknown>;
  }

  it("refuses a given value, never the default", async () => {
    await expect(parse(["--no-verify", "--cosine-threshold", "0.8"])).rejects.toThrow("--cosine-threshold does nothing with --no-verify");
    await expect(parse(["--pairs", "edges", "--pairs-limit", "10"])).rejects.toThrow("--pairs-limit does nothing with --pairs edges");
    await expect(parse(["--sample", "50"])).rejects.toThrow("--sample does nothing without --estimate-recall or --target-recall");
    await expect(parse(["--no-verify"])).resolves.toMatchObject({ verify: false });
    await expect(parse(["--verify", "--cosine-threshold", "0.8"])).resolves.toMatchObject({ "cosine-threshold": 0.8 });
    await expect(parse(["--pairs", "all", "--pairs-limit", "10"])).resolves.toMatchObject({ "pairs-limit": 10 });
    await expect(parse(["--estimate-recall", "--sample", "50"])).resolves.toMatchObject({ sample: 50 });
    await expect(parse(["--target-recall", "0.9", "--sample", "50"])).resolves.toMatchObject({ sample: 50 });
  });
});

describe("plebOptionsFrom", () => {
  const given = { beam: 2, "shift-count": 10, iterations: 50, seed: 1, verify: false, "cosine-threshold": 0.95, "estimate-recall": false, sample: 400 };

  it("samples PLEB's recall stratified unless --sampling uniform, and only with --estimate-recall or --target-recall", () => {
    expect(plebOptionsFrom(given, 256)).not.toHaveProperty("recallSampling");
    expect(plebOptionsFrom({ ...given, "estimate-recall": true }, 256)).toMatchObject({ recallSample: 400, recallSampling: "stratified" });
    expect(plebOptionsFrom({ ...given, "target-recall": 0.9, sampling: "uniform" }, 256)).toMatchObject({ recallSample: 400, recallSampling: "uniform", targetRecall: 0.9 });
  });
});
