import { VertdupError } from "../util/errors.js";

/**
 * What a worker task returns. A user error (bad input) travels as a message, because
 * structured cloning across threads loses an error's class; anything else is rethrown as
 * an internal error with its stack.
 */
export type TaskResult<T> = { ok: true; value: T } | { ok: false; message: string };

export function asTask<A, T>(fn: (arg: A) => T | Promise<T>): (arg: A) => Promise<TaskResult<T>> {
  return async (arg: A) => {
    try {
      return { ok: true, value: await fn(arg) };
    } catch (err) {
      if (err instanceof VertdupError) return { ok: false, message: err.message };
      throw err;
    }
  };
}
