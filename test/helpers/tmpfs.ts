import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A small tmpfs (256 KiB, to fill; or read-only), or why one cannot be mounted here: the
 * tests run as root, where permissions do not deny writes, so a real device must.
 */
export function mountSmallTmpfs(options = "size=256k"): { dir: string; unmount: () => void } | string {
  const dir = mkdtempSync(join(tmpdir(), "vertdup-tmpfs-"));
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", dir], { encoding: "utf8" });
  if (r.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs (needs root): ${r.error?.message ?? r.stderr.trim()}`;
  }
  return {
    dir,
    unmount: () => {
      spawnSync("umount", [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
