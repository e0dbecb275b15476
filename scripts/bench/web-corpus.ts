import { Random } from "./random.js";
import { ZipfSampler, wordForms } from "./zipf.js";
import { COMMA, NUMBER_BASE, PARAGRAPH, SENTENCE_END, VerticalRenderer, randomDocument, shortDocument, type CorpusText } from "./document.js";
import { TextSink } from "./output-stream.js";

/**
 * The shape of a web corpus: most documents unique, a share of them in clusters of copies whose
 * sizes follow a power law (most of 2–5, one of `largest` copies), boilerplate pages ("404 not
 * found", cookie walls) repeated thousands of times, and very short documents.
 *
 * A cluster is one body: its members are exact copies of it (other ids) or, for bodies of at
 * least FRAME_MIN_TOKENS, copies framed by another site's header and footer paragraph. The
 * first member in corpus order is the plain body, so every framed copy is close to a member of
 * its cluster. Members are scattered over the corpus by a seeded shuffle.
 */
export interface WebShapeOptions extends CorpusText {
  /** Fraction of the documents that are in clusters of ≥ 2. */
  clusterShare: number;
  /** Copies in the largest article cluster (at most half of the clustered documents); also the power law's cap. */
  largest: number;
  /** α of P(size) ∝ size^−α over sizes 2 … largest. */
  clusterExponent: number;
  /** Fraction of the documents with at most SHORT_TOKENS tokens. */
  shortShare: number;
  /** Clusters of boilerplate pages (at most PAGE_TEXTS.length). */
  pages: number;
  /** Each page cluster's size as a fraction of the documents: log-uniform in [lo, hi]. */
  pageShare: [number, number];
  /** Fraction of the copies of a long body that are framed by a site's header and footer. */
  framedShare: number;
}

export const DEFAULT_WEB: Omit<WebShapeOptions, "docs"> = {
  seed: 1,
  vocab: 300_000,
  zipf: 1.0,
  medianTokens: 300,
  sigma: 0.5,
  clusterShare: 0.2,
  largest: 100_000,
  clusterExponent: 2,
  shortShare: 0.1,
  pages: 4,
  pageShare: [0.001, 0.01],
  framedShare: 0.5,
};

/** The small case: 60,000 short documents, 30,000 of them the same 13-token page. */
export const BOILERPLATE_PRESET: WebShapeOptions = {
  ...DEFAULT_WEB,
  docs: 60_000,
  clusterShare: 0.5,
  largest: 0,
  shortShare: 1,
  pages: 1,
  pageShare: [0.5, 0.5],
};

export const SHORT_TOKENS = 20;
const FRAME_MIN_TOKENS = 300;
const SITES = 64;
const FRAME_RANKS = 1000;
/** Random streams: 1 words, 2 unique documents, 3 per-document choices, 4 sites, 5 the plan; bodies from CLUSTER_STREAM + cluster. */
const CLUSTER_STREAM = 1 << 20;
/** Bodies of clusters this large are kept instead of regenerated for every copy. */
const CACHED_CLUSTER = 1000;

/** Boilerplate pages, tokens separated by spaces (each ≤ SHORT_TOKENS tokens; the first is 13). */
export const PAGE_TEXTS = [
  "error 404 not found . the page you requested was not found .",
  "we use cookies to improve your experience . by using this site , you accept our use of cookies .",
  "sign in to your account to continue . forgot your password . create an account .",
  "access denied . you do not have permission to access this page .",
  "this domain is for sale . contact the owner for more information .",
  "subscribe to our newsletter . enter your email address to get the latest news .",
];

export type MemberKind = "page" | "source" | "exact" | "framed";

/** The truth file's header: one row per clustered document, in corpus order. */
export const WEB_TRUTH_HEADER = "doc\tordinal\tcluster\tkind\n";

/** Throws on options that would plan nonsense (NaN from a mistyped number, a share outside [0, 1]). */
export function checkWebShape(o: WebShapeOptions): void {
  const share = (x: number) => x >= 0 && x <= 1;
  const count = (x: number) => Number.isInteger(x) && x >= 0;
  const [lo, hi] = o.pageShare;
  const problems = [
    count(o.docs) && o.docs > 0 ? "" : "--docs: a positive integer",
    count(o.vocab) && o.vocab >= 1000 ? "" : "--vocab: an integer ≥ 1000",
    o.medianTokens > 0 && o.sigma >= 0 && o.zipf > 0 ? "" : "--median-tokens, --zipf: positive; --sigma: ≥ 0",
    share(o.clusterShare) && share(o.shortShare) && share(o.framedShare) ? "" : "--cluster-share, --short-share, --framed-share: in [0, 1]",
    count(o.largest) ? "" : "--largest: an integer ≥ 0",
    o.clusterExponent > 0 ? "" : "--cluster-exponent: positive",
    count(o.pages) && o.pages <= PAGE_TEXTS.length ? "" : `--pages: 0 … ${PAGE_TEXTS.length}`,
    lo > 0 && lo <= hi && hi <= 1 ? "" : "--page-share: lo,hi with 0 < lo ≤ hi ≤ 1",
  ].filter((p) => p !== "");
  if (problems.length > 0) throw new Error(`web shape: ${problems.join("; ")}`);
}

/** Page texts as document codes; their words get codes after the generated vocabulary. */
function pageCodes(vocab: number): { codes: Int32Array[]; words: string[] } {
  const words: string[] = [];
  const codes = PAGE_TEXTS.map((text) => {
    const out = text.split(" ").map((t) => {
      if (t === ".") return SENTENCE_END;
      if (t === ",") return COMMA;
      if (/^\d+$/.test(t)) return NUMBER_BASE - Number(t);
      words.push(t);
      return vocab + words.length - 1;
    });
    out.push(PARAGRAPH);
    return Int32Array.from(out);
  });
  return { codes, words };
}

/**
 * A site's header or footer: one paragraph of 2–3 words and a full stop. Boilerplate words are
 * common words (from the FRAME_RANKS most frequent), so a framed copy stays a near copy for
 * tf-idf weights too.
 */
function frameParagraph(random: Random, zipf: ZipfSampler): number[] {
  const words = 2 + random.below(2);
  const out: number[] = [];
  for (let w = 0; w < words; w++) out.push(zipf.sample(random));
  out.push(SENTENCE_END, PARAGRAPH);
  return out;
}

interface ClusterPlan {
  sizes: Int32Array;
  /** Index into PAGE_TEXTS, or −1 for an article. */
  page: Int8Array;
  short: Uint8Array;
  /** Short documents inside clusters. */
  shortDocs: number;
}

/** Cluster sizes: the page clusters, the largest article cluster, then power-law draws until the share is used. */
function planClusters(o: WebShapeOptions, random: Random): ClusterPlan {
  const budget = Math.round(o.clusterShare * o.docs);
  const shortTarget = Math.round(o.shortShare * o.docs);
  const sizes: number[] = [];
  const page: number[] = [];
  const short: number[] = [];
  let left = budget;
  let shortDocs = 0;
  const add = (size: number, p: number, s: boolean) => {
    sizes.push(size);
    page.push(p);
    short.push(s ? 1 : 0);
    left -= size;
    if (s) shortDocs += size;
  };
  const [lo, hi] = o.pageShare;
  for (let p = 0; p < Math.min(o.pages, PAGE_TEXTS.length); p++) {
    const share = Math.exp(Math.log(lo) + random.uniform() * (Math.log(hi) - Math.log(lo)));
    const size = Math.min(left, Math.round(o.docs * share));
    if (size < 2) break;
    add(size, p, true);
  }
  const cap = Math.min(o.largest, Math.floor(budget / 2));
  if (cap >= 2 && left >= 2) {
    add(Math.min(cap, left), -1, false);
    const law = new ZipfSampler(cap - 1, o.clusterExponent, 2);
    while (left >= 2) {
      const drawn = law.sample(random) + 2;
      // A last document alone would be no cluster: the draw before it takes it.
      const size = left - drawn < 2 ? left : drawn;
      add(size, -1, random.uniform() < o.shortShare && shortDocs + size <= shortTarget);
    }
  }
  return { sizes: Int32Array.from(sizes), page: Int8Array.from(page), short: Uint8Array.from(short), shortDocs };
}

/** Cluster index of every document (−1: unique), members scattered by a Fisher–Yates shuffle. */
function layout(docs: number, sizes: Int32Array, random: Random): Int32Array {
  const slot = new Int32Array(docs).fill(-1);
  let at = 0;
  for (let c = 0; c < sizes.length; c++) slot.fill(c, at, (at += sizes[c]));
  for (let i = docs - 1; i > 0; i--) {
    const j = random.below(i + 1);
    const t = slot[i];
    slot[i] = slot[j];
    slot[j] = t;
  }
  return slot;
}

function tokenCount(codes: Int32Array): number {
  let n = 0;
  for (const c of codes) if (c !== PARAGRAPH) n++;
  return n;
}

export interface WebCorpusStats {
  tokens: number;
  clustered: number;
  clusters: number;
  largestCluster: number;
  shortDocs: number;
}

/**
 * Writes a web-shaped corpus and its truth (`doc ordinal cluster kind`: every document of a
 * cluster, ordinal 1-based, clusters numbered 1… in order of their first member, kind one of
 * page/source/exact/framed; a document not listed is unique).
 */
export async function generateWebCorpus(out: string, truthPath: string, o: WebShapeOptions, docId: (ordinal: number) => string): Promise<WebCorpusStats> {
  checkWebShape(o);
  const pages = pageCodes(o.vocab);
  const rendered = new VerticalRenderer(wordForms(o.vocab, new Random(o.seed, 1)).concat(pages.words));
  const zipf = new ZipfSampler(o.vocab, o.zipf);
  const shape = { medianTokens: o.medianTokens, sigma: o.sigma };
  const text = new Random(o.seed, 2);
  const choice = new Random(o.seed, 3);
  const siteRandom = new Random(o.seed, 4);
  const frameZipf = new ZipfSampler(Math.min(FRAME_RANKS, o.vocab), o.zipf);
  const sites = Array.from({ length: SITES }, () => ({ header: frameParagraph(siteRandom, frameZipf), footer: frameParagraph(siteRandom, frameZipf) }));
  const planRandom = new Random(o.seed, 5);
  const plan = planClusters(o, planRandom);
  const slot = layout(o.docs, plan.sizes, planRandom);
  const clustered = plan.sizes.reduce((n, s) => n + s, 0);
  const number = new Int32Array(plan.sizes.length);
  const cache = new Map<number, Int32Array>();
  const body = (c: number): Int32Array => {
    if (plan.page[c] >= 0) return pages.codes[plan.page[c]];
    const kept = cache.get(c);
    if (kept !== undefined) return kept;
    const r = new Random(o.seed, CLUSTER_STREAM + c);
    const codes = plan.short[c] === 1 ? shortDocument(r, zipf, SHORT_TOKENS) : randomDocument(r, zipf, shape);
    if (plan.sizes[c] >= CACHED_CLUSTER) cache.set(c, codes);
    return codes;
  };

  const corpus = new TextSink(out);
  const truth = new TextSink(truthPath);
  let truthBatch = WEB_TRUTH_HEADER;
  let numbered = 0;
  let tokens = 0;
  let shortDocs = 0;
  let shortNeeded = Math.max(0, Math.round(o.shortShare * o.docs) - plan.shortDocs);
  let uniqueLeft = o.docs - clustered;
  for (let d = 0; d < o.docs; d++) {
    const id = docId(d);
    const c = slot[d];
    let codes: Int32Array;
    if (c < 0) {
      // Selection sampling: exactly shortNeeded of the unique documents are short.
      const short = choice.uniform() * uniqueLeft < shortNeeded;
      uniqueLeft--;
      if (short) shortNeeded--;
      codes = short ? shortDocument(text, zipf, SHORT_TOKENS) : randomDocument(text, zipf, shape);
    } else {
      codes = body(c);
      let kind: MemberKind;
      if (plan.page[c] >= 0) kind = "page";
      else if (number[c] === 0) kind = "source";
      else if (tokenCount(codes) >= FRAME_MIN_TOKENS && choice.uniform() < o.framedShare) kind = "framed";
      else kind = "exact";
      if (number[c] === 0) number[c] = ++numbered;
      if (kind === "framed") {
        const site = sites[choice.below(SITES)];
        const framed = new Int32Array(site.header.length + codes.length + site.footer.length);
        framed.set(site.header);
        framed.set(codes, site.header.length);
        framed.set(site.footer, site.header.length + codes.length);
        codes = framed;
      }
      truthBatch += `${id}\t${d + 1}\t${number[c]}\t${kind}\n`;
    }
    const n = tokenCount(codes);
    tokens += n;
    if (n <= SHORT_TOKENS) shortDocs++;
    rendered.add(id, codes);
    if (rendered.size >= 1 << 20) await corpus.write(rendered.take());
    if (truthBatch.length > 1 << 16) {
      await truth.write(truthBatch);
      truthBatch = "";
    }
  }
  await corpus.write(rendered.take());
  await truth.write(truthBatch);
  await corpus.close();
  await truth.close();
  return { tokens, clustered, clusters: plan.sizes.length, largestCluster: plan.sizes.reduce((m, s) => Math.max(m, s), 0), shortDocs };
}
