/**
 * `VERTDUP_FAULT=kill:<point>` kills the process (SIGKILL, no clean-up) when it reaches the
 * point of that name: the crash tests use it to check that what a kill leaves behind is the
 * old state or the new one, never a mix (as `VERTDUP_FAULT=<task>` injects a task's failure).
 */
export function killPoint(point: string): void {
  if (process.env.VERTDUP_FAULT === `kill:${point}`) process.kill(process.pid, "SIGKILL");
}
