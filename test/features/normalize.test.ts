import { describe, expect, it } from "vitest";
import { normalizeToken } from "../../src/features/normalize.js";

const DEF = { normalize: "nfc" as const, lowercase: true, keepNumbers: false };

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
      expect(normalizeToken(t, { normalize: "nfc", lowercase: false, keepNumbers: true })).toBeNull();
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

describe("normalizeToken's Unicode forms", () => {
  const form = (normalize: "nfc" | "nfkc" | "none") => ({ ...DEF, normalize });

  it("nfc (the default) gives one term to NFC and NFD, and removes soft hyphens and zero-width characters", () => {
    for (const variant of ["café", "cafe\u0301", "ca\u00adfé", "caf\u200be\u0301", "\ufeffca\u2060fé", "ca\u200c\u200dfé"]) expect(normalizeToken(variant, DEF), variant).toBe("café");
    expect(normalizeToken("\u00ad\u200b", DEF)).toBeNull();
    // What only the stronger form folds stays apart.
    expect(normalizeToken("моло\u0301ко", DEF)).toBe("моло\u0301ко");
    expect(normalizeToken("ﬁnal", DEF)).toBe("ﬁnal");
  });

  it("nfkc also folds fullwidth letters, ligatures and compatibility digits, and drops accents and stress marks", () => {
    expect(normalizeToken("моло\u0301ко", form("nfkc"))).toBe("молоко");
    expect(normalizeToken("Ｐｒａｈａ", form("nfkc"))).toBe("praha");
    expect(normalizeToken("ﬁnal", form("nfkc"))).toBe("final");
    expect(normalizeToken("Café", form("nfkc"))).toBe("cafe");
    expect(normalizeToken("１２", form("nfkc"))).toBeNull();
    // Script-specific marks spell words: an Indic vowel sign stays.
    expect(normalizeToken("कि", form("nfkc"))).toBe("कि");
  });

  it("none hashes tokens as they are (vertdup 0.6.0)", () => {
    expect(normalizeToken("cafe\u0301", form("none"))).toBe("cafe\u0301");
    expect(normalizeToken("ca\u00adfé", form("none"))).toBe("ca\u00adfé");
  });
});
