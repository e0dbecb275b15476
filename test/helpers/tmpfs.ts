import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A 256 KiB tmpfs to fill, or why one cannot be mounted here. */
export function mountSmallTmpfs(): { dir: string; unmount: () => void } | string {
  const dir = mkdtempSync(join(tmpdir(), "vertdup-full-"));
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", dir], { encoding: "utf8" });
  if (r.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return `cannot mount a small tmpfs (needs root): ${r.error?.message ?? r.stderr.trim()}`;
  }
  return {
    dir,
    unmount: () => {
      spawnSync("umount", [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
