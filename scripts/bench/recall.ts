import { createReadStream, readFileSync } from "node:fs";
import { createInterface } from "node:readline";

export interface RecallRow {
  editRate: number;
  planted: number;
  found: number;
  recall: number;
}

/**
 * Recall of pairs.tsv against a truth file (`copy_id source_id edit_rate`), per edit rate,
 * plus the aggregates over edit rates ≤ 0.02 (the target's) and over all planted pairs. Only the truth pairs are held in
 * memory; pairs.tsv is streamed.
 */
export async function plantedRecall(pairsPath: string, truthPath: string): Promise<{ byRate: RecallRow[]; upTo2Percent: number; all: number }> {
  const rateOf = new Map<string, number>();
  for (const line of readFileSync(truthPath, "utf8").split("\n").slice(1)) {
    if (line === "") continue;
    const [copy, source, rate] = line.split("\t");
    rateOf.set(`${source}\t${copy}`, Number(rate));
    rateOf.set(`${copy}\t${source}`, Number(rate));
  }
  const found = new Set<string>();
  const lines = createInterface({ input: createReadStream(pairsPath), crlfDelay: Infinity });
  let header = true;
  for await (const line of lines) {
    if (header) {
      header = false;
      continue;
    }
    const tab2 = line.indexOf("\t", line.indexOf("\t") + 1);
    const key = line.slice(0, tab2);
    if (rateOf.has(key)) found.add(key);
  }
  const rows = new Map<number, RecallRow>();
  for (const [key, rate] of rateOf) {
    const [a, b] = key.split("\t");
    if (a > b) continue; // each pair once
    const row = rows.get(rate) ?? { editRate: rate, planted: 0, found: 0, recall: 0 };
    row.planted++;
    if (found.has(key) || found.has(`${b}\t${a}`)) row.found++;
    rows.set(rate, row);
  }
  const byRate = [...rows.values()].sort((x, y) => x.editRate - y.editRate);
  for (const r of byRate) r.recall = r.planted === 0 ? 0 : Number((r.found / r.planted).toFixed(4));
  const low = byRate.filter((r) => r.editRate <= 0.02);
  const planted = low.reduce((n, r) => n + r.planted, 0);
  const upTo2Percent = planted === 0 ? 0 : Number((low.reduce((n, r) => n + r.found, 0) / planted).toFixed(4));
  const plantedAll = byRate.reduce((n, r) => n + r.planted, 0);
  const all = plantedAll === 0 ? 0 : Number((byRate.reduce((n, r) => n + r.found, 0) / plantedAll).toFixed(4));
  return { byRate, upTo2Percent, all };
}
