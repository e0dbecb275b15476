/**
 * Synchronous clean-ups run when the process exits, whichever way: a normal end, an error
 * (the CLI calls process.exit), or SIGINT/SIGTERM, which `exitOnSignals` turns into an exit
 * with status 128 + signal number, so that temporary files, locks and temporary work
 * directories go on every path.
 */
const cleanups: (() => void)[] = [];
/** What must stop before the clean-ups may remove anything: worker threads that still write. */
const stoppers = new Set<() => Promise<void>>();
let hooked = false;
const CODES: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };
let signal: NodeJS.Signals | null = null;

function runCleanups(): void {
  // A signal's exit whatever else ended the process meanwhile (a task that failed as its pool stopped).
  if (signal !== null) process.exitCode = CODES[signal];
  for (const fn of cleanups.splice(0).reverse()) {
    try {
      fn();
    } catch {
      // One failed clean-up must not stop the others.
    }
  }
}

/** Registers `fn` to run at exit (last registered, first run); returns its removal. */
export function atExit(fn: () => void): () => void {
  if (!hooked) {
    process.on("exit", runCleanups);
    hooked = true;
  }
  cleanups.push(fn);
  return () => {
    const k = cleanups.indexOf(fn);
    if (k >= 0) cleanups.splice(k, 1);
  };
}

/**
 * Registers `stop`, awaited on SIGINT/SIGTERM before the exit clean-ups run (worker threads
 * are not stopped by the exit of the main thread's code: one still renaming a file into a
 * directory being removed leaves it behind); returns its removal.
 */
export function beforeSignalExit(stop: () => Promise<void>): () => void {
  stoppers.add(stop);
  return () => void stoppers.delete(stop);
}

/** The signal that ended the process, while its exit clean-ups run. */
export function interruptedBy(): NodeJS.Signals | null {
  return signal;
}


/** SIGINT and SIGTERM end the process through its exit clean-ups, with status 130 / 143. */
export function exitOnSignals(): void {
  for (const [name, code] of Object.entries(CODES) as [NodeJS.Signals, number][]) {
    process.on(name, () => {
      // A second signal does not wait for the workers.
      if (signal !== null) process.exit(CODES[signal]);
      signal = name;
      process.stderr.write(`\nvertdup: interrupted (${name})\n`);
      void Promise.allSettled([...stoppers].map((stop) => stop())).then(() => process.exit(code));
    });
  }
}
