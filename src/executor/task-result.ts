import { systemErrorForUser } from "../util/atomic.js";

/**
 * What a worker task returns. A user error (bad input) travels as a message, because
 * structured cloning across threads loses an error's class; anything else is rethrown as
 * an internal error with its stack.
 */
export type TaskResult<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Wraps a worker function as a pool task. `VERTDUP_FAULT=<function name>` makes that task
 * throw inside its worker thread: the tests use it to check that a failing worker stops the
 * run with a clear message and leaves the work directory resumable.
 */
export function asTask<A, T>(fn: (arg: A) => T | Promise<T>): (arg: A) => Promise<TaskResult<T>> {
  return async (arg: A) => {
    if (process.env.VERTDUP_FAULT === fn.name) throw new Error(`fault injected into ${fn.name} (VERTDUP_FAULT)`);
    try {
      return { ok: true, value: await fn(arg) };
    } catch (err) {
      // A full disk met in the worker: its code and path do not survive the thread's edge, the message does.
      const user = systemErrorForUser(err);
      if (user !== null) return { ok: false, message: user.message };
      throw err;
    }
  };
}
