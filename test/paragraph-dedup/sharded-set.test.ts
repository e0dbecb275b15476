import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ShardedSet } from "../../src/paragraph-dedup/onion-sequential.js";

describe("ShardedSet (onion's table of seen n-grams, beyond one Set's 2^24 entries)", () => {
  it("answers as one Set of the same strings does (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }), { maxLength: 300 }), fc.array(fc.string({ maxLength: 12 }), { maxLength: 100 }), (added, asked) => {
        const sharded = new ShardedSet();
        const plain = new Set<string>();
        for (const s of added) {
          sharded.add(s);
          plain.add(s);
        }
        expect(sharded.size).toBe(plain.size);
        for (const s of [...added, ...asked]) expect(sharded.has(s)).toBe(plain.has(s));
      }),
    );
  });
});
