/**
 * Streaming, seeded generator of a synthetic vertical corpus with planted near-duplicates.
 *
 *   node dist/scripts/generate-corpus.js --docs 100000 -o corpus.vert.zst [--truth corpus.truth.tsv]
 *       [--seed 1] [--vocab 300000] [--zipf 1.0] [--median-tokens 300] [--sigma 0.5]
 *       [--shape default|web|boilerplate]
 *   default: [--dup-share 0.1] [--edit-rates 0,0.01,0.02,0.05,0.1,0.2]
 *   web:     [--cluster-share 0.2] [--largest 100000] [--cluster-exponent 2] [--short-share 0.1]
 *            [--pages 4] [--page-share 0.001,0.01] [--framed-share 0.5]
 *   boilerplate: the web shape preset to 60,000 short documents, 30,000 of them one 13-token page
 *
 * Word ranks follow Zipf's law over `--vocab` word forms; lengths are log-normal around
 * `--median-tokens`; documents have <p>/<s> structure and <g/> glue before punctuation.
 *
 * default shape: a share `--dup-share` of the documents are copies of an earlier document
 * (drawn uniformly from all earlier original documents by reservoir sampling, so memory stays
 * bounded) edited at one of `--edit-rates` (a fraction of words substituted, deleted or
 * followed by an insertion). The truth file lists `copy_id source_id edit_rate`, the format
 * of data-samples/*.truth.tsv.
 *
 * web shape (scripts/bench/web-corpus.ts): `--cluster-share` of the documents are in clusters
 * of copies. Sizes: `--pages` boilerplate pages ("404 not found", a cookie wall, …), each
 * copied a log-uniform `--page-share` fraction of the documents; one article cluster of
 * `--largest` copies (at most half of the clustered documents); then sizes 2 … `--largest`
 * with P(size) ∝ size^−`--cluster-exponent`. A copy is exact (another id) or, for bodies of
 * ≥ 300 tokens, with probability `--framed-share` framed by one of 64 sites' header and footer
 * paragraphs. `--short-share` of all documents have ≤ 20 tokens (pages, some clusters, unique
 * documents). The truth file has one row per clustered document, in corpus order:
 * `doc ordinal cluster kind` (ordinal 1-based as in clusters.tsv; clusters numbered 1… by
 * first member; kind page|source|exact|framed; unlisted documents are unique), so a checker
 * builds the true partition in linear memory (scripts/quality/clusters-check.ts).
 *
 * Output: .vert, .vert.gz or .vert.zst by the name. Same options, same bytes.
 */
import { parseArgs } from "node:util";
import { Random } from "./bench/random.js";
import { ZipfSampler, wordForms } from "./bench/zipf.js";
import { PARAGRAPH, VerticalRenderer, editDocument, randomDocument, type CorpusText } from "./bench/document.js";
import { TextSink } from "./bench/output-stream.js";
import { BOILERPLATE_PRESET, DEFAULT_WEB, generateWebCorpus, type WebShapeOptions } from "./bench/web-corpus.js";

export interface GeneratorOptions extends CorpusText {
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
  const rendered = new VerticalRenderer(wordForms(opts.vocab, new Random(opts.seed, 1)));
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
    rendered.add(id, codes);
    if (rendered.size >= 1 << 20) await corpus.write(rendered.take());
  }
  await corpus.write(rendered.take());
  await corpus.close();
  await truth.close();
  return { tokens, planted };
}

const HELP = `usage: generate-corpus --docs N -o corpus.vert[.gz|.zst] [--truth corpus.truth.tsv] [--seed 1]
    [--vocab 300000] [--zipf 1.0] [--median-tokens 300] [--sigma 0.5] [--shape default|web|boilerplate]
  default: [--dup-share 0.1] [--edit-rates 0,0.01,0.02,0.05,0.1,0.2]
    truth: copy_id  source_id  edit_rate   (one row per planted copy)
  web: [--cluster-share 0.2] [--largest 100000] [--cluster-exponent 2] [--short-share 0.1]
       [--pages 4] [--page-share 0.001,0.01] [--framed-share 0.5]
  boilerplate: 60,000 short documents (--docs to change), half of them one 13-token page
    truth (web, boilerplate): doc  ordinal  cluster  kind
      one row per document in a cluster, in corpus order; ordinal 1-based (as in clusters.tsv);
      clusters numbered 1… by their first member; kind page|source|exact|framed;
      a document not listed is unique
The truth file defaults to the output's name with .truth.tsv. Same options, same bytes.
`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      help: { type: "boolean", short: "h" },
      shape: { type: "string", default: "default" },
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
      "cluster-share": { type: "string" },
      largest: { type: "string" },
      "cluster-exponent": { type: "string" },
      "short-share": { type: "string" },
      pages: { type: "string" },
      "page-share": { type: "string" },
      "framed-share": { type: "string" },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const shape = values.shape;
  if (shape !== "default" && shape !== "web" && shape !== "boilerplate") throw new Error(`--shape ${shape}: expected default, web or boilerplate`);
  if ((values.docs === undefined && shape !== "boilerplate") || values.out === undefined) throw new Error(HELP.trimEnd());
  const num = (v: string | undefined, d: number) => (v === undefined ? d : Number(v));
  const text = (base: CorpusText): CorpusText => ({
    docs: num(values.docs, base.docs),
    seed: num(values.seed, base.seed),
    vocab: num(values.vocab, base.vocab),
    zipf: num(values.zipf, base.zipf),
    medianTokens: num(values["median-tokens"], base.medianTokens),
    sigma: num(values.sigma, base.sigma),
  });
  const truth = values.truth ?? values.out.replace(/\.vert(\.gz|\.zst)?$/, "") + ".truth.tsv";
  const t0 = performance.now();
  let summary: string;
  if (shape === "default") {
    const opts: GeneratorOptions = {
      ...text({ ...DEFAULT_GENERATOR, docs: Number(values.docs) }),
      dupShare: num(values["dup-share"], DEFAULT_GENERATOR.dupShare),
      editRates: values["edit-rates"]?.split(",").map(Number) ?? DEFAULT_GENERATOR.editRates,
    };
    const { tokens, planted } = await generateCorpus(values.out, truth, opts);
    summary = `${opts.docs} documents, ${tokens} tokens, ${planted} planted copies`;
  } else {
    const base = shape === "boilerplate" ? BOILERPLATE_PRESET : { ...DEFAULT_WEB, docs: 0 };
    const pageShare = values["page-share"]?.split(",").map(Number);
    const opts: WebShapeOptions = {
      ...text(base),
      clusterShare: num(values["cluster-share"], base.clusterShare),
      largest: num(values.largest, base.largest),
      clusterExponent: num(values["cluster-exponent"], base.clusterExponent),
      shortShare: num(values["short-share"], base.shortShare),
      pages: num(values.pages, base.pages),
      pageShare: pageShare === undefined ? base.pageShare : [pageShare[0], pageShare[1] ?? pageShare[0]],
      framedShare: num(values["framed-share"], base.framedShare),
    };
    const st = await generateWebCorpus(values.out, truth, opts, docId);
    summary = `${opts.docs} documents, ${st.tokens} tokens, ${st.clustered} in ${st.clusters} clusters (largest ${st.largestCluster}), ${st.shortDocs} short`;
  }
  const s = (performance.now() - t0) / 1000;
  process.stderr.write(`${summary} → ${values.out}, ${truth} (${s.toFixed(1)} s)\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
