import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { rng } from "./vert.js";

/**
 * A corpus cut in batches with planted duplicates, for the `--against` equivalence tests:
 * fresh documents of 4 paragraphs of 10–30 words from a 600-word vocabulary, and copies of
 * a random earlier document (of any batch, copies included, so that chains of copies cross
 * batches): exact, with one word changed, or with one paragraph added. Returns the batch
 * files (`names`, by default batch<k>.vert; ids b<batch>d<k>). Deterministic in `seed`.
 */
export function writeBatches(dir: string, sizes: readonly number[], seed = 7, names = sizes.map((_, k) => `batch${k}.vert`)): string[] {
  const r = rng(seed);
  const word = () => `w${Math.floor(r() * 600)}`;
  const paragraph = () => Array.from({ length: 10 + Math.floor(r() * 21) }, word);
  const docs: string[][][] = [];
  const paths: string[] = [];
  sizes.forEach((size, batch) => {
    const parts: string[] = [];
    for (let k = 0; k < size; k++) {
      let doc: string[][];
      if (docs.length > 0 && r() < 0.35) {
        doc = docs[Math.floor(r() * docs.length)].map((p) => [...p]);
        const edit = r();
        if (edit < 0.4) {
          const p = doc[Math.floor(r() * doc.length)];
          p[Math.floor(r() * p.length)] = word();
        } else if (edit < 0.7) doc.push(paragraph());
      } else doc = Array.from({ length: 4 }, paragraph);
      docs.push(doc);
      parts.push(`<doc id="b${batch}d${k}">\n${doc.map((p) => `<p>\n<s>\n${p.join("\n")}\n</s>\n</p>\n`).join("")}</doc>\n`);
    }
    const path = join(dir, names[batch]);
    writeFileSync(path, parts.join(""));
    paths.push(path);
  });
  return paths;
}
