/**
 * Synchronous clean-ups run when the process exits, whichever way: a normal end, an error
 * (the CLI calls process.exit), or SIGINT/SIGTERM, which `exitOnSignals` turns into an exit
 * with status 128 + signal number, so that temporary files, locks and temporary work
 * directories go on every path.
 */
const cleanups: (() => void)[] = [];
let hooked = false;
let signal: NodeJS.Signals | null = null;

function runCleanups(): void {
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

/** The signal that ended the process, while its exit clean-ups run. */
export function interruptedBy(): NodeJS.Signals | null {
  return signal;
}

const CODES: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

/** SIGINT and SIGTERM end the process through its exit clean-ups, with status 130 / 143. */
export function exitOnSignals(): void {
  for (const [name, code] of Object.entries(CODES) as [NodeJS.Signals, number][]) {
    process.on(name, () => {
      if (signal !== null) return;
      signal = name;
      process.stderr.write(`\nvertdup: interrupted (${name})\n`);
      process.exit(code);
    });
  }
}
