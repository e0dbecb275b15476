import { describe, expect, it } from "vitest";
import { parseSize } from "../../src/util/size.js";
import { VertdupError } from "../../src/core/errors.js";

describe("parseSize", () => {
  it("reads byte counts and k/M/G/T suffixes as powers of 1024", () => {
    expect(parseSize("4G", "memory")).toBe(4 * 1024 ** 3);
    expect(parseSize("512m", "memory")).toBe(512 * 1024 ** 2);
    expect(parseSize("1.5g", "memory")).toBe(1.5 * 1024 ** 3);
    expect(parseSize("100k", "memory")).toBe(102_400);
    expect(parseSize("2GiB", "memory")).toBe(2 * 1024 ** 3);
    expect(parseSize(4096, "memory")).toBe(4096);
  });

  it("names the option on a bad size", () => {
    expect(() => parseSize("lots", "memory")).toThrow(VertdupError);
    expect(() => parseSize("-1G", "memory")).toThrow(/--memory: expected a size such as 4G or 512M, got -1G/);
  });
});
