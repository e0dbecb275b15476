/** Concatenates typed arrays (per-shard parts, per-task results) in the given order. */
export function concatU32(parts: readonly Uint32Array[]): Uint32Array {
  const out = new Uint32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
