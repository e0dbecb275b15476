/**
 * `VERTDUP_KILL=<name>` kills the process (SIGKILL, no clean-up) when it reaches the point of
 * that name: the crash tests use it to check that what a kill leaves behind is consistent.
 */
export function killPoint(name: string): void {
  if (process.env.VERTDUP_KILL === name) process.kill(process.pid, "SIGKILL");
}
