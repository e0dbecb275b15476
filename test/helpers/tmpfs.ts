import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Tmpfs {
  dir: string;
  unmount: () => void;
}

function tryMount(options: string): Tmpfs | string {
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

/**
 * Why a small tmpfs cannot be mounted here, or null. The tests run as root, where
 * permissions do not deny writes: a full or read-only device must. Mount in beforeAll (not
 * at collection), so that a filtered run that skips the suite leaves nothing mounted.
 */
export function tmpfsUnavailable(): string | null {
  const probe = tryMount("size=64k");
  if (typeof probe === "string") return probe;
  probe.unmount();
  return null;
}

/** A tmpfs with these mount options (`size=256k` to fill, `ro,…` read-only). */
export function mountTmpfs(options: string): Tmpfs {
  const t = tryMount(options);
  if (typeof t === "string") throw new Error(t);
  return t;
}
