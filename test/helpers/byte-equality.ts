// toEqual on two Buffers compares them element by element through vitest's generic deep
// equality: 29 s for two 5 MB outputs, which made the byte-identity checks of the end-to-end
// tests the slowest part of CI. Byte arrays of one type are compared with memcmp instead;
// the verdict is the same, only faster (anything else falls through to the default).
import { expect } from "vitest";

expect.addEqualityTesters([
  (a: unknown, b: unknown) => {
    if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array) || a.constructor !== b.constructor) return undefined;
    return Buffer.compare(a, b) === 0;
  },
]);
