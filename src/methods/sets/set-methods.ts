import { EXACT } from "../exact/method.js";
import { MINHASH } from "../minhash/method.js";
import { PARAGRAPH_SETS } from "../paragraph-sets/method.js";
import { SIMHASH384 } from "../simhash384/method.js";
import type { SetMethod, SetMethodSpec } from "./set-method.js";

/** The set methods, by their `--method` name: what each declares in its own folder. */
export const SET_METHODS: Record<SetMethod, SetMethodSpec> = {
  minhash: MINHASH,
  simhash384: SIMHASH384,
  exact: EXACT,
  paragraphs: PARAGRAPH_SETS,
};

/** Whether `--method name` is a set method (every method but the core pipeline's). */
export function isSetMethod(name: string): name is SetMethod {
  return Object.hasOwn(SET_METHODS, name);
}
