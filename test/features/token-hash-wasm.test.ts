import { type Chunk, emptyWarnings } from "../../src/corpus/vertical.js";
import { NORMALIZATIONS, type TermOptions } from "../../src/core/options.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { countChunk, type ShardCounter } from "../../src/features/count-shard.js";
import { tokenHashKernelStatus, TokenHashRuns } from "../../src/features/token-hash-wasm.js";
import { countByte } from "../../src/util/count-byte.js";

// Characters where lowercasing, normalisation (combining marks, soft hyphen, zero-width and
// other invisible characters, fullwidth letters, ligatures, precomposed letters) or the Unicode
// classes are special, and code points of every UTF-8 length (the kernel decodes 1 and 2 bytes and leaves longer ones to TokenHasher).
const special = fc.constantFrom(..."AZaz09ŠšĚěΣσςİıǅẞßŸµÅKΩ٣１Ⅻ\u00a0\ufeff<>/-_.,😀日\r\u0301\u0300\u0308\u0323\u0327\u0345\u05b0\u0653\u20d7\u00ad\u034f\u061c\u200b\u200c\u200d\u2060\ufe0fＡｚ１ﬁﬀǆéÉèыЁ²ϹΐᾳǱ");
const inRange = (min: number, max: number) => fc.integer({ min, max }).filter((c) => c < 0xd800 || c > 0xdfff).map((c) => String.fromCodePoint(c));
// Letters followed by the combining mark that NFC composes with them.
const composing = fc.constantFrom("e\u0301", "A\u0308", "c\u030c", "о\u0301", "и\u0306", "ß\u0301", "Σ\u0301");
const char = fc.oneof({ arbitrary: composing, weight: 2 }, { arbitrary: special, weight: 8 }, inRange(0x00, 0x7f), inRange(0x80, 0x7ff), inRange(0x800, 0xffff), inRange(0x10000, 0x10ffff));
const token = fc.array(char, { maxLength: 10 }).map((cs) => cs.join("").replace(/[\t\n]/g, ""));
// Token lines (with more columns or not), structure lines, empty lines, CRLF.
const line = fc.oneof(
  { arbitrary: token, weight: 10 },
  { arbitrary: fc.tuple(token, token).map(([t, lemma]) => `${t}\t${lemma}\tX`), weight: 3 },
  { arbitrary: fc.constantFrom("<s>", "</s>", "<g/>", "<p>", "</p>", "<3", "<", ""), weight: 3 },
  // Elements nested, crossed and unclosed, with and without attributes.
  { arbitrary: fc.constantFrom("<s>", "</s>", "<s>", "</s>", "<x>", "</x>", "</y>", "<s a=\"1\">", "<s >", "</s >", "<p>", "</p>", "<ps>", "</pp>", "<do>", "</docs>"), weight: 4 },
  // Empty elements the kernel passes over, and lines like them that it leaves to the parser.
  { arbitrary: fc.constantFrom("<g/>", "<_x.y:z-1/>", "<G9/>", "<g />", "<1/>", "</g/>", "<g/", "<g/>x", "<gé/>", "</>"), weight: 2 },
  // Errors: CRLF, an empty document element.
  { arbitrary: fc.constantFrom("<g/>\r", "<doc/>"), weight: 1 },
  { arbitrary: token.map((t) => `${t}\r`), weight: 1 },
);
const doc = fc.array(line, { maxLength: 30 });
const chunkText = fc.tuple(fc.array(doc, { minLength: 1, maxLength: 5 }), fc.boolean()).map(([docs, finalNewline]) => {
  const text = docs.map((lines, d) => [`<doc id="d${d}">`, ...lines, "</doc>"].join("\n")).join("\n");
  return { text: finalNewline ? `${text}\n` : text, docs: docs.length };
});
const options = fc.record({ normalize: fc.constantFrom(...NORMALIZATIONS), lowercase: fc.boolean(), keepNumbers: fc.boolean(), shingleSize: fc.constantFrom(1, 2), paragraphs: fc.boolean() });

function chunkOf(text: string, docCount: number): Chunk {
  return { index: 0, file: "test.vert", firstLine: 1, firstDoc: 0, docCount, bytes: Buffer.from(text) };
}

/** What a counter made of a chunk, or the error it threw. */
function counted(chunk: Chunk, opts: TermOptions & { paragraphs?: boolean }, kernel: boolean) {
  const warnings = emptyWarnings();
  let counter: ShardCounter;
  try {
    counter = countChunk(chunk, { column: 0, idAttr: "id", ...opts }, warnings, kernel);
  } catch (e) {
    return { error: (e as Error).message };
  }
  const { ids, keptTokens } = counter;
  const arrays = [counter.ordinals, counter.lengths, counter.tokens, counter.terms, counter.counts].map((a) => Array.from(a.view()));
  return { ids, keptTokens, arrays, warnings };
}

describe("the token-hash kernel", () => {
  it("is available in this runtime", () => {
    expect(tokenHashKernelStatus(() => undefined)).toBe("webassembly");
  });

  it("counts a chunk as TokenHasher and the parser alone do: the same terms, counts, tokens, warnings and errors (property)", () => {
    fc.assert(
      fc.property(chunkText, options, ({ text, docs }, opts) => {
        const chunk = chunkOf(text, docs);
        expect(counted(chunk, opts, true)).toEqual(counted(chunk, opts, false));
      }),
      { numRuns: 1500 },
    );
  });

  it("counts documents longer than its table holds (2^16 kept tokens) as TokenHasher alone does", () => {
    const words = Array.from({ length: 70_000 }, (_, i) => `w${(i * 7919) % 50_000}`);
    const chunk = chunkOf(`<doc id="long">\n${words.join("\n")}\n</doc>\n<doc id="short">\nw1\n</doc>\n`, 2);
    const opts = { normalize: "nfc" as const, lowercase: true, keepNumbers: false, shingleSize: 1 };
    const kernel = counted(chunk, opts, true) as { arrays: number[][] };
    expect(kernel.arrays[1]).toEqual([50_000, 1]);
    expect(kernel).toEqual(counted(chunk, opts, false));
  });

  it("gives the same hash to a term wherever it occurs: in a run, after a tag, before another column, in any case", () => {
    const opts = { normalize: "nfc" as const, lowercase: true, keepNumbers: false, shingleSize: 1 };
    const text = '<doc id="a">\nŠtěkají\n<g/>\nštěkají\nPsi\n</doc>\n<doc id="b">\npsi\nštěKají\tx\n</doc>\n<doc id="c">\nŠTĚKAJÍ\n</doc>\n';
    const { arrays, error } = counted(chunkOf(text, 3), opts, true) as { arrays: number[][]; error?: string };
    expect(error).toBeUndefined();
    const [, lengths, tokens, terms, counts] = arrays;
    expect(lengths).toEqual([2, 2, 1]);
    expect(tokens).toEqual([3, 2, 1]);
    // štěkají, psi | psi, štěkají | štěkají
    expect(terms[0]).toBe(terms[3]);
    expect(terms[0]).toBe(terms[4]);
    expect(terms[1]).toBe(terms[2]);
    expect(counts).toEqual([2, 1, 1, 1, 1]);
  });

  it("counts a chunk's newlines as countByte does, at any length and alignment (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(15), (body, skip) => {
        // Newlines often, and bytes that differ from 10 in one bit.
        const bytes = Buffer.from(body.map((b) => (b % 3 === 0 ? 10 : b % 5 === 0 ? 10 ^ (1 << (b % 8)) : b))).subarray(Math.min(skip, body.length));
        const runs = TokenHashRuns.load(bytes, { normalize: "nfc" as const, lowercase: true, keepNumbers: false });
        expect(runs?.newlines()).toBe(countByte(bytes, 10));
      }),
      { numRuns: 500 },
    );
  });
});
