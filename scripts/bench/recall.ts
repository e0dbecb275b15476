import { createReadStream, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { CLUSTERS_HEADER } from "../../src/output/clusters-tsv.js";
import { unescapeField } from "../../src/output/tsv-field.js";

export interface RecallRow {
  editRate: number;
  planted: number;
  found: number;
  recall: number;
}

/**
 * Recall of a run against a truth file (`copy_id source_id edit_rate`), per edit rate, plus
 * the aggregates over edit rates ≤ 0.02 (the target's) and over all planted pairs. A planted
 * pair counts as found when the run put both documents in one cluster (clusters.tsv): with
 * `--pairs edges` pairs.tsv holds only the links that join clusters, so the clusters are
 * what every method reports. Only the truth pairs and the clustered ids are held in memory.
 */
export async function plantedRecall(clustersPath: string, truthPath: string): Promise<{ byRate: RecallRow[]; upTo2Percent: number; all: number }> {
  const clusterOf = new Map<string, number>();
  const lines = createInterface({ input: createReadStream(clustersPath), crlfDelay: Infinity });
  let header = true;
  for await (const line of lines) {
    if (header) {
      if (line + "\n" !== CLUSTERS_HEADER) throw new Error(`${clustersPath}: not a clusters.tsv header`);
      header = false;
      continue;
    }
    if (line === "") continue;
    const f = line.split("\t");
    clusterOf.set(unescapeField(f[0]), Number(f[2]));
  }
  const rows = new Map<number, RecallRow>();
  for (const line of readFileSync(truthPath, "utf8").split("\n").slice(1)) {
    if (line === "") continue;
    const [copy, source, rate] = line.split("\t");
    const editRate = Number(rate);
    const row = rows.get(editRate) ?? { editRate, planted: 0, found: 0, recall: 0 };
    row.planted++;
    const cluster = clusterOf.get(copy);
    if (cluster !== undefined && cluster === clusterOf.get(source)) row.found++;
    rows.set(editRate, row);
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
