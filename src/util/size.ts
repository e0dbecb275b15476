import { VertdupError } from "../core/errors.js";

const SIZE = /^(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?$/i;

/** Parses `4G`, `512M`, `100k`, `1.5g` or a plain byte count (powers of 1024) given to --`option`. */
export function parseSize(text: string | number, option: string): number {
  const m = SIZE.exec(String(text).trim());
  if (m === null) throw new VertdupError(`--${option}: expected a size such as 4G or 512M, got ${text}`);
  const power = " kmgt".indexOf(m[2].toLowerCase() || " ");
  return Math.floor(Number(m[1]) * 1024 ** power);
}
