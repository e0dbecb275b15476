/**
 * Streaming, seeded generator of a synthetic vertical corpus with planted near-duplicates.
 *
 *   node dist/scripts/generate-corpus.js --docs 100000 -o corpus.vert.zst [--truth corpus.truth.tsv]
 *       [--seed 1] [--vocab 300000] [--zipf 1.0] [--median-tokens 300] [--sigma 0.5]
 *       [--dup-share 0.1] [--edit-rates 0,0.01,0.02,0.05,0.1,0.2]
 *
 * Word ranks follow Zipf's law over `--vocab` word forms; lengths are log-normal around
 * `--median-tokens`; documents have <p>/<s> structure and <g/> glue before punctuation. A
 * share `--dup-share` of the documents are copies of an earlier document (drawn uniformly
 * from all earlier original documents by reservoir sampling, so memory stays bounded)
 * edited at one of `--edit-rates` (a fraction of words substituted, deleted or followed by
 * an insertion). The truth file lists `copy_id source_id edit_rate`, the format of
 * data-samples/*.truth.tsv. Output: .vert, .vert.gz or .vert.zst by the name. Same options,
 * same bytes.
 */
import { parseArgs } from "node:util";
import { Random } from "./bench/random.js";
import { ZipfSampler, wordForms } from "./bench/zipf.js";
import { PARAGRAPH, editDocument, randomDocument, renderDocument } from "./bench/document.js";
import { TextSink } from "./bench/output-stream.js";

export interface GeneratorOptions {
  docs: number;
  seed: number;
  vocab: number;
  zipf: number;
  medianTokens: number;
  sigma: number;
  dupShare: number;
  editRates: number[];
}

export const DEFAULT_GENERATOR: Omit<GeneratorOptions, "docs"> = {
  seed: 1,
  vocab: 300_000,
  zipf: 1.0,
  medianTokens: 300,
  sigma: 0.5,
  dupShare: 0.1,
  editRates: [0, 0.01, 0.02, 0.05, 0.1, 0.2],
};

/** Sources kept for planting copies: a uniform sample of all earlier originals. */
const RESERVOIR = 4096;

export function docId(ordinal: number): string {
  return `g${String(ordinal + 1).padStart(8, "0")}`;
}

/** Writes the corpus and the truth file; returns the number of tokens written. */
export async function generateCorpus(out: string, truthPath: string, opts: GeneratorOptions): Promise<{ tokens: number; planted: number }> {
  const words = wordForms(opts.vocab, new Random(opts.seed, 1));
  const zipf = new ZipfSampler(opts.vocab, opts.zipf);
  const shape = { medianTokens: opts.medianTokens, sigma: opts.sigma };
  const text = new Random(opts.seed, 2);
  const plant = new Random(opts.seed, 3);
  const corpus = new TextSink(out);
  const truth = new TextSink(truthPath);
  await truth.write("copy_id\tsource_id\tedit_rate\n");
  const reservoir: { id: string; codes: Int32Array }[] = [];
  let originals = 0;
  let tokens = 0;
  let planted = 0;
  let batch = "";
  for (let d = 0; d < opts.docs; d++) {
    const id = docId(d);
    let codes: Int32Array;
    if (reservoir.length > 0 && plant.uniform() < opts.dupShare) {
      const source = reservoir[plant.below(reservoir.length)];
      const rate = opts.editRates[plant.below(opts.editRates.length)];
      codes = editDocument(source.codes, rate, plant, zipf);
      await truth.write(`${id}\t${source.id}\t${rate}\n`);
      planted++;
    } else {
      codes = randomDocument(text, zipf, shape);
      // Algorithm R: after m originals each has been kept with probability RESERVOIR/m.
      originals++;
      if (reservoir.length < RESERVOIR) reservoir.push({ id, codes });
      else {
        const slot = plant.below(originals);
        if (slot < RESERVOIR) reservoir[slot] = { id, codes };
      }
    }
    for (const c of codes) if (c !== PARAGRAPH) tokens++;
    batch += renderDocument(id, codes, words);
    if (batch.length > 1 << 20) {
      await corpus.write(batch);
      batch = "";
    }
  }
  await corpus.write(batch);
  await corpus.close();
  await truth.close();
  return { tokens, planted };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      docs: { type: "string" },
      out: { type: "string", short: "o" },
      truth: { type: "string" },
      seed: { type: "string" },
      vocab: { type: "string" },
      zipf: { type: "string" },
      "median-tokens": { type: "string" },
      sigma: { type: "string" },
      "dup-share": { type: "string" },
      "edit-rates": { type: "string" },
    },
  });
  if (values.docs === undefined || values.out === undefined) {
    throw new Error("usage: generate-corpus --docs N -o corpus.vert[.gz|.zst] [--truth file] …");
  }
  const num = (v: string | undefined, d: number) => (v === undefined ? d : Number(v));
  const opts: GeneratorOptions = {
    docs: Number(values.docs),
    seed: num(values.seed, DEFAULT_GENERATOR.seed),
    vocab: num(values.vocab, DEFAULT_GENERATOR.vocab),
    zipf: num(values.zipf, DEFAULT_GENERATOR.zipf),
    medianTokens: num(values["median-tokens"], DEFAULT_GENERATOR.medianTokens),
    sigma: num(values.sigma, DEFAULT_GENERATOR.sigma),
    dupShare: num(values["dup-share"], DEFAULT_GENERATOR.dupShare),
    editRates: values["edit-rates"]?.split(",").map(Number) ?? DEFAULT_GENERATOR.editRates,
  };
  const truth = values.truth ?? values.out.replace(/\.vert(\.gz|\.zst)?$/, "") + ".truth.tsv";
  const t0 = performance.now();
  const { tokens, planted } = await generateCorpus(values.out, truth, opts);
  const s = (performance.now() - t0) / 1000;
  process.stderr.write(`${opts.docs} documents, ${tokens} tokens, ${planted} planted copies → ${values.out}, ${truth} (${s.toFixed(1)} s)\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
