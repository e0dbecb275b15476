import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openAtomic, removeOwnTemporaries, syncFiles, temporaryName, writeAtomic, writeAtomicGroup, writeAtomicSync, writeScratchSync } from "../../src/util/atomic.js";
import { mountTmpfs, tmpfsUnavailable, type Tmpfs } from "../helpers/tmpfs.js";

const MiB = Buffer.alloc(1 << 20, 7);

describe("writeAtomic", () => {
  let dir = "";
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "vertdup-atomic-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("puts every byte in place and leaves no temporary file", async () => {
    const path = join(dir, "a.bin");
    await writeAtomic(path, MiB);
    expect(readFileSync(path).equals(MiB)).toBe(true);
    await writeAtomic(path, "replaced");
    expect(readFileSync(path, "utf8")).toBe("replaced");
    expect(readdirSync(dir)).toEqual(["a.bin"]);
  });

  it("removeOwnTemporaries removes this process's temporary files at any depth, and nothing else", () => {
    const work = join(dir, "work");
    mkdirSync(join(work, "shards"), { recursive: true });
    const own = [temporaryName(join(work, "a.zst")), temporaryName(join(work, "shards", "000000.counts.zst"))];
    const others = [join(work, "shards", "b.zst"), join(work, `c.zst.tmp-${process.pid + 1}-00000000`)];
    for (const f of [...own, ...others]) writeFileSync(f, "x");
    removeOwnTemporaries(work);
    const left = readdirSync(work, { recursive: true, encoding: "utf8" }).map((f) => join(work, f));
    expect(left.sort()).toEqual([join(work, "shards"), ...others].sort());
  });

  it("writeAtomicSync writes parts one after another, as one file", () => {
    const path = join(dir, "parts.bin");
    writeAtomicSync(path, [Buffer.from("head"), new Uint8Array(0), MiB]);
    expect(readFileSync(path).equals(Buffer.concat([Buffer.from("head"), MiB]))).toBe(true);
    expect(readdirSync(dir).filter((f) => f.startsWith("parts"))).toEqual(["parts.bin"]);
  });

  it("names the final path when its directory does not exist", async () => {
    await expect(writeAtomic(join(dir, "absent", "x"), "x")).rejects.toThrow(/absent\/x: cannot write \(no such file or directory \(ENOENT\)\)/);
  });

  it("writeAtomicGroup puts every file in place, parts in order, across directories", async () => {
    const group = join(dir, "group");
    mkdirSync(join(group, "sub"), { recursive: true });
    await writeAtomicGroup([
      { path: join(group, "a.bin"), data: MiB },
      { path: join(group, "sub", "b.bin"), data: [Buffer.from("one,"), new Uint8Array(0), Buffer.from("two")] },
      { path: join(group, "c.bin"), data: [] },
    ]);
    expect(readFileSync(join(group, "a.bin")).equals(MiB)).toBe(true);
    expect(readFileSync(join(group, "sub", "b.bin"), "utf8")).toBe("one,two");
    expect(readFileSync(join(group, "c.bin")).length).toBe(0);
    expect(readdirSync(group, { recursive: true, encoding: "utf8" }).sort()).toEqual(["a.bin", "c.bin", "sub", join("sub", "b.bin")]);
  });

  it("writeAtomicGroup without fsync puts the same files in place, which syncFiles then syncs; syncFiles names a missing file", async () => {
    const group = join(dir, "group3");
    mkdirSync(group);
    const files = [join(group, "a.bin"), join(group, "b.bin")];
    await writeAtomicGroup([{ path: files[0], data: MiB }, { path: files[1], data: [Buffer.from("x"), Buffer.from("y")] }], false);
    expect(readFileSync(files[0]).equals(MiB)).toBe(true);
    expect(readFileSync(files[1], "utf8")).toBe("xy");
    expect(readdirSync(group).sort()).toEqual(["a.bin", "b.bin"]);
    await syncFiles(files);
    await expect(syncFiles([...files, join(group, "c.bin")])).rejects.toThrow(/group3\/c\.bin: cannot write \(no such file or directory \(ENOENT\)\)/);
  });

  it("writeAtomicGroup names the file it cannot write and leaves none of the group's temporaries", async () => {
    const group = join(dir, "group2");
    mkdirSync(group);
    await expect(writeAtomicGroup([{ path: join(group, "a.bin"), data: MiB }, { path: join(group, "absent", "b.bin"), data: MiB }])).rejects.toThrow(/absent\/b\.bin: cannot write \(no such file or directory \(ENOENT\)\)/);
    expect(readdirSync(group)).toEqual([]);
  });
});

const noTmpfs = tmpfsUnavailable();
if (noTmpfs !== null) console.warn(`ENOSPC tests skipped: ${noTmpfs}`);

describe.skipIf(noTmpfs !== null)("a full device: nothing under the final name, no temporary left", () => {
  let full: Tmpfs | undefined;
  let dir = "";
  beforeAll(() => {
    full = mountTmpfs("size=256k");
    dir = full.dir;
  });
  afterAll(() => full?.unmount());

  it("writeAtomic refuses a short write (write-file-atomic reported success)", async () => {
    await expect(writeAtomic(join(dir, "big.bin"), MiB)).rejects.toThrow(/big\.bin: cannot write \(no space left on the device \(ENOSPC\)\)/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("writeScratchSync refuses a short write", () => {
    expect(() => writeScratchSync(join(dir, "scratch.bin"), MiB)).toThrow(/scratch\.bin: cannot write \(no space left/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("writeAtomicSync of parts refuses a short write", () => {
    expect(() => writeAtomicSync(join(dir, "parts.bin"), [Buffer.from("head"), MiB])).toThrow(/parts\.bin: cannot write \(no space left/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("writeAtomicGroup refuses a short write and renames none of the group", async () => {
    await expect(writeAtomicGroup([{ path: join(dir, "small.bin"), data: Buffer.from("x") }, { path: join(dir, "big.bin"), data: [MiB.subarray(0, 1 << 19), MiB.subarray(1 << 19)] }])).rejects.toThrow(/big\.bin: cannot write \(no space left on the device \(ENOSPC\)\)/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("openAtomic rejects the write or the commit, never renames", async () => {
    const file = openAtomic(join(dir, "stream.bin"));
    const attempt = async () => {
      for (let k = 0; k < 16; k++) await file.write(MiB.subarray(0, 64 << 10));
      await file.commit();
    };
    await expect(attempt()).rejects.toThrow(/stream\.bin: cannot write \(no space left/);
    await file.abort();
    expect(readdirSync(dir)).toEqual([]);
  });
});
