import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { IdentityGroups } from "../clusters/identity-groups.js";
import { describeStreamError, openInput } from "../corpus/open-input.js";
import type { DocIds } from "../output/doc-ids.js";
import { GROUPS_FILE, GROUPS_HEADER } from "../output/groups-tsv.js";
import { pairOrder } from "../output/pairs.js";
import { unescapeField } from "../output/tsv-field.js";
import { InputError, VertdupError } from "../core/errors.js";
import { growableF64, growableU32 } from "../util/typed-arrays.js";
import { readPairsFile, type PairTable } from "./pairs-file.js";
import { meetsThreshold } from "../util/similarity-threshold.js";

/** Rows of a groups.tsv: each document (interned id) with its group's first document. */
export interface GroupRows {
  path: string;
  docs: Uint32Array;
  leaders: Uint32Array;
}

/** Reads groups.tsv (output/groups-tsv.ts), interning its ids into `ids`. */
export async function readGroupsFile(path: string, ids: DocIds): Promise<GroupRows> {
  const docs = growableU32();
  const leaders = growableU32();
  let line = 0;
  let group = 0;
  let leader = 0;
  try {
    for await (const text of createInterface({ input: openInput(path), crlfDelay: Infinity })) {
      line++;
      if (line === 1) {
        if (text + "\n" !== GROUPS_HEADER) throw new InputError(path, 1, "not a groups.tsv header");
        continue;
      }
      const f = text.split("\t");
      const g = Number(f[0]);
      if (f.length !== 3 || !Number.isInteger(g) || g < group || g < 1) throw new InputError(path, line, "malformed groups.tsv row (group doc ordinal, groups in order)");
      const doc = ids.intern(unescapeField(f[1]));
      if (g !== group) {
        group = g;
        leader = doc;
      }
      docs.append([doc]);
      leaders.append([leader]);
    }
  } catch (err) {
    if (err instanceof VertdupError) throw err;
    throw describeStreamError(path, err);
  }
  return { path, docs: docs.view(), leaders: leaders.view() };
}

/** A pairs file and, when it is a run's pairs.tsv with groups.tsv beside it, those groups. */
export interface RunPairs {
  table: PairTable;
  groups: GroupRows | null;
}

/** Reads a candidate pairs file; a file named pairs.tsv takes the groups.tsv of its directory. */
export async function readRunPairs(path: string, ids: DocIds): Promise<RunPairs> {
  const groupsPath = join(dirname(path), GROUPS_FILE);
  const groups = basename(path) === "pairs.tsv" && existsSync(groupsPath) ? await readGroupsFile(groupsPath, ids) : null;
  return { table: await readPairsFile(path, ids), groups };
}

/**
 * Every document pair a run's outputs stand for, counted and looked up without expanding
 * them: the pairs inside each identity group (similarity 1) and, for each listed pair, every
 * document of one's group with every document of the other's (the pair's similarity). A
 * fully expanded pairs.tsv (`--pairs all`) gives the same set. Entries are the distinct
 * pairs of groups, plus one entry for all pairs inside groups (index `entries`).
 */
export class VirtualPairs {
  readonly path: string;
  /** Distinct pairs of groups (lo < hi, group leaders), sorted, with their similarities. */
  private readonly lo: Uint32Array;
  private readonly hi: Uint32Array;
  private readonly sims: Float64Array;
  private readonly unit: Uint32Array;
  private readonly groups: IdentityGroups;
  /** Document pairs inside groups. */
  private readonly inside: number;

  constructor(run: RunPairs, ids: DocIds) {
    const n = ids.length;
    this.path = run.table.path;
    const unit = new Uint32Array(n);
    for (let k = 0; k < n; k++) unit[k] = k;
    if (run.groups !== null) {
      const { docs, leaders } = run.groups;
      for (let r = 0; r < docs.length; r++) {
        if (unit[docs[r]] !== docs[r]) {
          throw new VertdupError(`${run.groups.path}: document ${ids.get(docs[r])} is in two groups`);
        }
        unit[docs[r]] = leaders[r];
      }
    }
    this.unit = unit;
    this.groups = new IdentityGroups(unit);
    let inside = 0;
    for (let g = 0; g < n; g++) inside += (this.groups.size[g] * (this.groups.size[g] - 1)) / 2;
    this.inside = inside;
    const t = run.table;
    const lo = (k: number) => Math.min(unit[t.a[k]], unit[t.b[k]]);
    const hi = (k: number) => Math.max(unit[t.a[k]], unit[t.b[k]]);
    const order = pairOrder(t.a.length, lo, hi, n);
    const los = growableU32();
    const his = growableU32();
    const sims = growableF64();
    for (let i = 0; i < order.length; i++) {
      const k = order[i];
      if (lo(k) === hi(k)) continue;
      const last = sims.length - 1;
      if (last >= 0 && los.values[last] === lo(k) && his.values[last] === hi(k)) sims.values[last] = Math.max(sims.values[last], t.similarity[k]);
      else {
        los.append([lo(k)]);
        his.append([hi(k)]);
        sims.append([t.similarity[k]]);
      }
    }
    this.lo = los.view();
    this.hi = his.view();
    this.sims = sims.view();
  }

  /** Entries: distinct pairs of groups, then the one entry of pairs inside groups. */
  get entries(): number {
    return this.sims.length;
  }

  similarity(e: number): number {
    return e === this.sims.length ? 1 : this.sims[e];
  }

  /** Document pairs an entry stands for. */
  weight(e: number): number {
    return e === this.sims.length ? this.inside : this.groups.size[this.lo[e]] * this.groups.size[this.hi[e]];
  }

  /** The entry holding the pair of documents x ≠ y (interned ids), or −1. */
  find(x: number, y: number): number {
    const u = this.unit[x];
    const v = this.unit[y];
    if (u === v) return this.sims.length;
    const lo = Math.min(u, v);
    const hi = Math.max(u, v);
    let a = 0;
    let b = this.lo.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (this.lo[m] < lo || (this.lo[m] === lo && this.hi[m] < hi)) a = m + 1;
      else b = m;
    }
    return a < this.lo.length && this.lo[a] === lo && this.hi[a] === hi ? a : -1;
  }

  /** Calls `pair` for every document pair of the entries with similarity ≥ threshold. */
  forEachPair(threshold: number, pair: (x: number, y: number) => void): void {
    const { size, start, members } = this.groups;
    for (let g = 0; g < size.length; g++) {
      for (let p = start[g]; p < start[g] + size[g]; p++) for (let q = p + 1; q < start[g] + size[g]; q++) pair(members[p], members[q]);
    }
    for (let e = 0; e < this.sims.length; e++) {
      if (!meetsThreshold(this.sims[e], threshold)) continue;
      const [u, v] = [this.lo[e], this.hi[e]];
      for (let p = start[u]; p < start[u] + size[u]; p++) for (let q = start[v]; q < start[v] + size[v]; q++) pair(members[p], members[q]);
    }
  }
}
