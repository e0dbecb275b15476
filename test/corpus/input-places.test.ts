import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InputPlaces } from "../../src/corpus/input-places.js";
import { loadStored } from "../../src/corpus/stored.js";
import { VertdupError } from "../../src/core/errors.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-places-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("inputs read by byte range", () => {
  it("are the plain files; a file that changes during the run is an error, not silent damage", () => {
    const plain = join(dir, "a.vert");
    writeFileSync(plain, '<doc id="a">\nx\n</doc>\n');
    const places = new InputPlaces([plain, join(dir, "b.vert.gz"), "-"]);
    expect(places.size(plain)).toBe(22);
    expect(places.size(join(dir, "b.vert.gz"))).toBeNull();
    expect(places.size("-")).toBeNull();
    expect(() => places.checkUnchanged()).not.toThrow();
    appendFileSync(plain, '<doc id="b">\ny\n</doc>\n');
    expect(() => places.checkUnchanged()).toThrow(/a\.vert: the input changed during the run/);
  });

  it("a range past a file's end (it shrank) is an error naming the file", () => {
    const path = join(dir, "short.vert");
    writeFileSync(path, "12345");
    expect(Buffer.from(loadStored({ path, offset: 1, length: 3 })).toString()).toBe("234");
    expect(() => loadStored({ path, offset: 2, length: 10 })).toThrow(VertdupError);
  });
});
