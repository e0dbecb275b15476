/**
 * Crash-test hook: with `VERTDUP_FAULT=kill:<point>` the process kills itself with SIGKILL at
 * that point, as a power cut or an OOM kill would (tests of the index's atomic updates).
 */
export function killPoint(point: string): void {
  if (process.env.VERTDUP_FAULT === `kill:${point}`) process.kill(process.pid, "SIGKILL");
}
