import { describe, expect, it } from "vitest";
import { normalizeToken } from "../../src/features/normalize.js";

const DEF = { lowercase: true, keepNumbers: false };

describe("normalizeToken", () => {
  it("lowercases by default (Unicode-aware, locale-independent)", () => {
    expect(normalizeToken("Praha", DEF)).toBe("praha");
    expect(normalizeToken("ŽLUŤOUČKÝ", DEF)).toBe("žluťoučký");
    expect(normalizeToken("МОСКВА", DEF)).toBe("москва");
    expect(normalizeToken("İstanbul", DEF)).toBe("i̇stanbul");
  });

  it("keeps case with lowercase: false (--no-lowercase)", () => {
    expect(normalizeToken("Praha", { ...DEF, lowercase: false })).toBe("Praha");
    expect(normalizeToken("ŽLUŤ", { ...DEF, lowercase: false })).toBe("ŽLUŤ");
  });

  it("drops tokens with no letter or digit", () => {
    for (const t of ["", ",", ".", "...", "<", "<>", "—", "„“", "!?", " ", "\t", "€", "😀", "-_-"]) {
      expect(normalizeToken(t, DEF)).toBeNull();
      expect(normalizeToken(t, { lowercase: false, keepNumbers: true })).toBeNull();
    }
  });

  it("keeps tokens with at least one letter, punctuation included and unchanged", () => {
    expect(normalizeToken("a", DEF)).toBe("a");
    expect(normalizeToken("(Brno)", DEF)).toBe("(brno)");
    expect(normalizeToken("don't", DEF)).toBe("don't");
  });

  it("drops digit-only tokens unless keepNumbers", () => {
    for (const t of ["0", "42", "2024", "٣", "１２"]) {
      expect(normalizeToken(t, DEF)).toBeNull();
      expect(normalizeToken(t, { ...DEF, keepNumbers: true })).toBe(t);
    }
  });

  it("keeps mixed tokens whatever keepNumbers says", () => {
    for (const [t, n] of [
      ["3.14", "3.14"],
      ["1,000", "1,000"],
      ["<3", "<3"],
      ["COVID-19", "covid-19"],
      ["2x", "2x"],
      ["-5", "-5"],
      ["e-mail", "e-mail"],
    ]) {
      expect(normalizeToken(t, DEF)).toBe(n);
      expect(normalizeToken(t, { ...DEF, keepNumbers: true })).toBe(n);
    }
  });
});
