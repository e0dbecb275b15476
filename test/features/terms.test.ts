import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NORMALIZATIONS } from "../../src/core/options.js";
import { hashSequence, hashString } from "../../src/features/hash.js";
import { countTerms, DROPPED, shingles, termCounts, termHash, tokenHash, TokenHasher, tokenHashes } from "../../src/features/terms.js";
import { documentFrequencies } from "../../src/features/count-shard.js";

const DEF = { normalize: "nfc" as const, lowercase: true, keepNumbers: false };

describe("tokenHashes", () => {
  it("hashes the normalised kept tokens, in order", () => {
    const tokens = ["Psi", ",", "štěkají", "42", "<", "<3", "PSI", "..."];
    expect(tokenHashes(tokens, DEF)).toEqual(["psi", "štěkají", "<3", "psi"].map(hashString));
    expect(tokenHashes(tokens, { normalize: "nfc" as const, lowercase: false, keepNumbers: true })).toEqual(
      ["Psi", "štěkají", "42", "<3", "PSI"].map(hashString),
    );
  });

  it("returns nothing for a document with no kept token", () => {
    expect(tokenHashes([], DEF)).toEqual([]);
    expect(tokenHashes([",", "1", "2"], DEF)).toEqual([]);
  });
});

describe("shingles", () => {
  const h = ["a", "b", "c", "d", "e"].map(hashString);

  it("k = 1 is the token sequence itself", () => {
    expect(shingles(h, 1)).toEqual(h);
    expect(shingles([], 1)).toEqual([]);
  });

  it("k = 3 gives every window of 3 consecutive hashes, in order", () => {
    expect(shingles(h, 3)).toEqual([0, 1, 2].map((i) => hashSequence(h, i, 3)));
    expect(shingles(h, 3).length).toBe(3);
    expect(shingles(h.slice(0, 3), 3)).toEqual([hashSequence(h, 0, 3)]);
  });

  it("gives no shingle when there are fewer than k tokens", () => {
    expect(shingles(h.slice(0, 2), 3)).toEqual([]);
    expect(shingles([], 3)).toEqual([]);
  });

  it("k = 2 shingles differ from k = 1 terms and from each other's order", () => {
    const ab = shingles([h[0], h[1]], 2)[0];
    const ba = shingles([h[1], h[0]], 2)[0];
    expect(ab).not.toBe(ba);
    expect(h).not.toContain(ab);
  });
});

describe("countTerms", () => {
  it("lists distinct terms in order of first occurrence with their counts", () => {
    expect(countTerms([5, 3, 5, 7, 3, 5])).toEqual({ terms: [5, 3, 7], counts: [3, 2, 1] });
    expect(countTerms([])).toEqual({ terms: [], counts: [] });
  });
});

describe("termCounts", () => {
  const tokens = ["The", "cat", ",", "the", "2024", "CAT", "the", "cat", "!"];

  it("k = 1: counts of normalised kept tokens", () => {
    const r = termCounts(tokens, { ...DEF, shingleSize: 1 });
    expect(r).toEqual({ terms: ["the", "cat"].map(hashString), counts: [3, 3], kept: 6 });
  });

  it("k = 1 with keepNumbers and without lowercasing", () => {
    const r = termCounts(tokens, { normalize: "nfc" as const, lowercase: false, keepNumbers: true, shingleSize: 1 });
    expect(r).toEqual({
      terms: ["The", "cat", "the", "2024", "CAT"].map(hashString),
      counts: [1, 2, 2, 1, 1],
      kept: 7,
    });
  });

  it("k = 3: shingles of consecutive kept tokens (dropped tokens do not break a shingle)", () => {
    const r = termCounts(tokens, { ...DEF, shingleSize: 3 });
    const kept = ["the", "cat", "the", "cat", "the", "cat"].map(hashString);
    const tcT = hashSequence(kept, 0, 3); // the cat the
    const ctC = hashSequence(kept, 1, 3); // cat the cat
    expect(r).toEqual({ terms: [tcT, ctC], counts: [2, 2], kept: 6 });
    // The same shingles as if the dropped tokens were never there.
    expect(termCounts(["the", "cat", "the", "cat", "the", "cat"], { ...DEF, shingleSize: 3 })).toEqual(r);
  });

  it("k = 3 on a short document: no terms, but kept tokens are counted", () => {
    expect(termCounts(["a", ",", "b"], { ...DEF, shingleSize: 3 })).toEqual({ terms: [], counts: [], kept: 2 });
  });

  it("is deterministic and independent of other documents", () => {
    const opts = { ...DEF, shingleSize: 2 };
    const a = termCounts(tokens, opts);
    termCounts(["other", "words"], opts);
    expect(termCounts(tokens, opts)).toEqual(a);
  });
});

describe("tokenHash (on bytes)", () => {
  // ASCII, 2-byte letters with and without case, Σ (contextual lowercase), İ (two code
  // units lowercased), digits of other scripts, 3- and 4-byte characters, empty.
  const TOKENS = ["Psi", "PSI", "štěkají", "ŠTĚKAJÍ", "42", "4a", "1.5", "٣", "x٣", "ΟΔΟΣ", "Σ", "ΣΑΣ", "İstanbul", "İ", "ǅ", "ẞ", "ß", "Ÿ",
    "µ", "„", "–", "...", ",", "<", "<3", "č", "Č1", "1č", "日本", "😀", "a😀", "", "Ω", "Å", "K", "a\u00a0b", "\ufeffx", "１２", "Ⅻ", "A-Z_0",
    // Unicode variants of one word: NFD, soft hyphen, zero-width characters, stress mark, fullwidth, ligature, a mark alone.
    "cafe\u0301", "café", "Cafe\u0301", "ko\u00adme", "\u00ad", "ko\u200bme", "\u200dx\u2060", "моло\u0301ко", "Ｐｒａｈａ", "ﬁnal", "\u0301", "e\u0301\u0323", "ς\u0301", "Σ\u00ad"];
  it("equals termHash of the decoded token for every option", () => {
    for (const normalize of NORMALIZATIONS) {
      for (const lowercase of [true, false]) {
        for (const keepNumbers of [true, false]) {
          const opts = { normalize, lowercase, keepNumbers };
          const read = tokenHash(opts);
          for (const t of TOKENS) {
            const bytes = Buffer.from(`\t${t}\n`);
            expect(read(bytes, 1, bytes.length - 1), t).toBe(termHash(t, opts));
          }
        }
      }
    }
  });

  // Characters where lowercasing or the Unicode classes are special, mixed with code points of
  // every UTF-8 length (1 to 4 bytes: the byte path decodes 1 and 2, hands the rest to the string path).
  // Also what normalisation changes: combining marks (2- and 3-byte), soft hyphen, zero-width and other invisible characters, fullwidth letters, ligatures, precomposed letters.
  const special = fc.constantFrom(..."AZaz09ŠšΣσςİıǅẞßŸµÅKΩ٣１Ⅻ\u00a0\ufeff<>-_.,😀日\u0301\u0300\u0308\u0323\u0327\u0345\u05b0\u0653\u20d7\u00ad\u034f\u061c\u200b\u200c\u200d\u2060\ufe0fＡｚ１ﬁﬀǆéÉèыЁ²ϹΐᾳǱ");
  const inRange = (min: number, max: number) => fc.integer({ min, max }).filter((c) => c < 0xd800 || c > 0xdfff).map((c) => String.fromCodePoint(c));
  // Letters followed by the combining mark that NFC composes with them.
  const composing = fc.constantFrom("e\u0301", "A\u0308", "c\u030c", "о\u0301", "и\u0306", "ß\u0301", "Σ\u0301");
  const char = fc.oneof({ arbitrary: composing, weight: 2 }, { arbitrary: special, weight: 6 }, inRange(0x00, 0x7f), inRange(0x80, 0x7ff), inRange(0x800, 0xffff), inRange(0x10000, 0x10ffff));
  const token = fc.array(char, { maxLength: 12 }).map((cs) => cs.join("").replace(/[\t\n]/g, ""));
  const options = fc.record({ normalize: fc.constantFrom(...NORMALIZATIONS), lowercase: fc.boolean(), keepNumbers: fc.boolean() });

  it("equals termHash of the decoded token for arbitrary Unicode tokens (property)", () => {
    fc.assert(
      fc.property(token, options, (t, opts) => {
        const bytes = Buffer.from(`\t${t}\n`);
        expect(tokenHash(opts)(bytes, 1, bytes.length - 1)).toBe(termHash(t, opts));
      }),
      { numRuns: 1000 },
    );
  });

  it("reads a line's first column as the count pass does: termHash of it, stopping at the tab or newline (property)", () => {
    fc.assert(
      fc.property(token, token, fc.constantFrom("\t", "\n"), options, (t, rest, end, opts) => {
        const hasher = new TokenHasher(opts);
        const bytes = Buffer.from(`${t}${end}${rest}\n`);
        expect(hasher.hashWord(bytes, 0, bytes.length)).toBe(termHash(t, opts));
        expect(hasher.end).toBe(Buffer.byteLength(t));
      }),
      { numRuns: 1000 },
    );
  });

  it("gives DROPPED for dropped tokens", () => {
    const bytes = Buffer.from("7,");
    expect(tokenHash(DEF)(bytes, 0, 1)).toBe(DROPPED);
    expect(tokenHash(DEF)(bytes, 1, 2)).toBe(DROPPED);
    expect(tokenHash({ normalize: "nfc" as const, lowercase: true, keepNumbers: true })(bytes, 0, 1)).toBe(hashString("7"));
  });
});

describe("documentFrequencies", () => {
  it.each([true, false])("counts in how many documents each term occurs, terms sorted (kernel: %s)", (kernel) => {
    const df = documentFrequencies(Float64Array.from([5, 3, 9, 3, 5, 3]), undefined, kernel);
    expect(Array.from(df.terms)).toEqual([3, 5, 9]);
    expect(Array.from(df.dfs)).toEqual([3, 2, 1]);
    expect(documentFrequencies(new Float64Array(0), undefined, kernel).terms.length).toBe(0);
  });

  it.each([true, false])("sums partial document frequencies of equal terms when given them (kernel: %s)", (kernel) => {
    const df = documentFrequencies(Float64Array.from([9, 2 ** 52, 3, 9, 3, 3]), Uint32Array.from([4, 1, 2, 5, 1, 7]), kernel);
    expect(Array.from(df.terms)).toEqual([3, 9, 2 ** 52]);
    expect(Array.from(df.dfs)).toEqual([10, 9, 1]);
  });

  it("sums partial dfs as a plain sort does, in the kernel and the TypeScript loop, the partial input left as it was", () => {
    let seed = 11;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const pool = Array.from({ length: 700 }, () => (next() & 0x1f_ffff) * 2 ** 32 + next());
    const terms = Float64Array.from({ length: 30_000 }, () => pool[next() % pool.length]);
    const partial = Uint32Array.from({ length: terms.length }, () => 1 + (next() % 1000));
    const expected = new Map<number, number>();
    terms.forEach((t, k) => expected.set(t, (expected.get(t) ?? 0) + partial[k]));
    const keys = [...expected.keys()].sort((a, b) => a - b);
    for (const kernel of [true, false]) {
      const before = partial.slice();
      const df = documentFrequencies(terms, partial, kernel);
      expect(Array.from(df.terms)).toEqual(keys);
      expect(Array.from(df.dfs)).toEqual(keys.map((k) => expected.get(k)));
      expect(partial).toEqual(before);
    }
  });

  it("equals a plain sort and count on 53-bit terms, also those sharing their low 32 bits", () => {
    let seed = 3;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const pool = Array.from({ length: 500 }, () => (next() & 0x1f_ffff) * 2 ** 32 + next());
    for (let i = 0; i < 50; i++) pool.push((i % 7) * 2 ** 32 + 12345, 2 ** 53 - 1 - i);
    const terms = Float64Array.from({ length: 20_000 }, () => pool[next() % pool.length]);
    const expected = new Map<number, number>();
    for (const t of terms) expected.set(t, (expected.get(t) ?? 0) + 1);
    const keys = [...expected.keys()].sort((a, b) => a - b);
    // The WebAssembly kernel and the TypeScript loop.
    for (const kernel of [true, false]) {
      const df = documentFrequencies(terms, undefined, kernel);
      expect(Array.from(df.terms)).toEqual(keys);
      expect(Array.from(df.dfs)).toEqual(keys.map((k) => expected.get(k)));
    }
  });
});
