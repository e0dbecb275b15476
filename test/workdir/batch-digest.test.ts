import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkedDigests, digestInputs, repeatedInput } from "../../src/workdir/batch-digest.js";
import { IndexUpdate, newIndex, readIndex } from "../../src/workdir/index-store.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-digest-"));
const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));

describe("batch digests", () => {
  it("records each input's absolute path, size and SHA-256; standard input as null", async () => {
    const a = file("a.vert", "<doc id=\"1\">\nx\n</doc>\n");
    const [digest, stdin] = await digestInputs([a, "-"]);
    expect(digest).toEqual({ path: resolve(a), bytes: 22, sha256: createHash("sha256").update("<doc id=\"1\">\nx\n</doc>\n").digest("hex") });
    expect(stdin).toBeNull();
    await expect(digestInputs([join(dir, "missing.vert")])).rejects.toThrow("missing.vert: cannot read input file");
  });

  it("finds an input whose bytes an earlier batch read, under any name; not an empty file, not a batch without digests", async () => {
    const index = join(dir, "idx");
    mkdirSync(index);
    const base = file("base.vert", "<doc id=\"b\">\nbase\n</doc>\n");
    const jan = file("jan.vert", "<doc id=\"j\">\njanuary\n</doc>\n");
    const empty = file("empty.vert", "");
    const first = new IndexUpdate(index, newIndex("exact", {}), [base, empty], await digestInputs([base, empty]), 1);
    await first.commit();
    const second = new IndexUpdate(index, await readIndex(index), ["jan.vert"], await digestInputs([jan]), 1);
    await second.commit();
    const manifest = await readIndex(index);
    const copy = join(dir, "copy-of-jan.vert");
    copyFileSync(jan, copy);
    const feb = file("feb.vert", "<doc id=\"f\">\nfebruary\n</doc>\n");
    const empty2 = file("empty2.vert", "");
    expect(repeatedInput(manifest, [feb, copy], await digestInputs([feb, copy]))).toEqual({ input: copy, batch: 1, created: manifest.batches[1].created, earlier: "jan.vert" });
    expect(repeatedInput(manifest, [feb, empty2, "-"], await digestInputs([feb, empty2, "-"]))).toBeUndefined();
    // An index made before digests were recorded: nothing to compare with.
    const old = { ...manifest, batches: manifest.batches.map(({ digests: _, ...b }) => b) };
    expect(repeatedInput(old, [copy], await digestInputs([copy]))).toBeUndefined();

    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    await expect(checkedDigests([{ dir: "base.idx", manifest }], [base], true, warn)).rejects.toThrow(
      `${base} has the same bytes as ${base}, batch 0 of base.idx (added ${manifest.batches[0].created}): refusing to append it again (its documents are in the index already)`,
    );
    expect(warnings).toEqual([]);
    expect(await checkedDigests([{ dir: "base.idx", manifest }], [copy], false, warn)).toHaveLength(1);
    expect(warnings).toEqual([`${copy} has the same bytes as jan.vert, batch 1 of base.idx (added ${manifest.batches[1].created}): its documents are in the index already`]);
    expect(await checkedDigests([{ dir: "base.idx", manifest }], [feb], true, warn)).toEqual(await digestInputs([feb]));
  });
});
