/** A small deterministic PRNG (mulberry32) for generated test corpora. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A random vertical corpus with repeats at every scale: a small vocabulary, paragraphs
 * copied from earlier documents (exactly or with edits), short stubs, `<s>`, `<g/>`, empty
 * paragraphs, empty lines, tagged (tab-separated) token lines, tags between documents, empty
 * `<p/>` elements and stray `</p>` tags (each of which starts a unit after it).
 */
export function randomCorpus(seed: number, docs: number): string {
  const r = rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const vocab = Array.from({ length: 40 }, (_, i) => `w${i}`);
  const paragraphs: string[][] = [];
  const out: string[] = [];
  for (let d = 0; d < docs; d++) {
    if (r() < 0.05) out.push("<note/>");
    out.push(`<doc id="d${d}" title="a > b">`);
    const pars = 1 + Math.floor(r() * 5);
    for (let p = 0; p < pars; p++) {
      let words: string[];
      const x = r();
      if (x < 0.3 && paragraphs.length > 0) {
        words = [...pick(paragraphs)];
        if (r() < 0.5) for (let e = 0; e < 3; e++) words[Math.floor(r() * words.length)] = pick(vocab);
      } else if (x < 0.45) {
        words = Array.from({ length: Math.floor(r() * 6) }, () => pick(vocab));
      } else {
        words = Array.from({ length: 5 + Math.floor(r() * 40) }, () => pick(vocab));
      }
      paragraphs.push(words);
      out.push(r() < 0.1 ? `<p id="${p}">` : "<p>");
      out.push("<s>");
      for (const w of words) {
        const y = r();
        if (y < 0.05) out.push("<g/>");
        else if (y < 0.07) out.push("</s>", "<s>");
        else if (y < 0.08) out.push("");
        out.push(y > 0.97 ? `${w}\tTAG${Math.floor(r() * 3)}` : w);
      }
      out.push("</s>");
      if (r() < 0.95) out.push("</p>");
      if (r() < 0.04) out.push("</p>");
      if (r() < 0.04) out.push("<p/>");
    }
    out.push("</doc>");
  }
  return `${out.join("\n")}\n`;
}
