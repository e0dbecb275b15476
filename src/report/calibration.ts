import { readFile } from "node:fs/promises";
import { errorCode } from "../util/atomic.js";
import { VertdupError } from "../util/errors.js";

/** The calibration table a run's output directory may hold (written by `calibrate`). */
export const CALIBRATION_FILE = "calibration.tsv";

/** Columns of calibration.tsv, in the names of `CalibrationRow` (fractions, intervals at 95 %). */
const COLUMNS = {
  threshold: "threshold",
  recall: "recall",
  recallLow: "recall_low",
  recallHigh: "recall_high",
  precision: "precision",
  precisionLow: "precision_low",
  precisionHigh: "precision_high",
} as const;

/** Recall and precision of a run against an exact reference at one threshold, with 95 % intervals. */
export type CalibrationRow = Record<keyof typeof COLUMNS, number>;

/** Most rows the report shows: a calibration sweeps thresholds, a few dozen at most. */
export const MAX_CALIBRATION_ROWS = 1000;

/**
 * calibration.tsv (a header naming at least the columns of COLUMNS, in any order, then one
 * row per threshold), or undefined when the file does not exist. A missing column, a value
 * that is not a number or too many rows is an error naming the file and line.
 */
export async function readCalibration(path: string): Promise<CalibrationRow[] | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if (errorCode(err) === "ENOENT") return undefined;
    throw err;
  }
  const lines = text.split("\n").filter((l) => l.length > 0);
  const header = (lines[0] ?? "").split("\t");
  const at = {} as Record<keyof typeof COLUMNS, number>;
  for (const [key, name] of Object.entries(COLUMNS) as [keyof typeof COLUMNS, string][]) {
    at[key] = header.indexOf(name);
    if (at[key] < 0) throw new VertdupError(`${path}:1: no column ${name} in the header (expected ${Object.values(COLUMNS).join(", ")})`);
  }
  if (lines.length - 1 > MAX_CALIBRATION_ROWS) throw new VertdupError(`${path}: ${lines.length - 1} rows, at most ${MAX_CALIBRATION_ROWS}`);
  return lines.slice(1).map((line, k) => {
    const fields = line.split("\t");
    const row = {} as CalibrationRow;
    for (const key of Object.keys(COLUMNS) as (keyof typeof COLUMNS)[]) {
      const value = Number(fields[at[key]]);
      if (fields[at[key]] === undefined || fields[at[key]] === "" || !Number.isFinite(value)) {
        throw new VertdupError(`${path}:${k + 2}: ${COLUMNS[key]} is not a number: ${JSON.stringify((fields[at[key]] ?? "").slice(0, 40))}`);
      }
      row[key] = value;
    }
    return row;
  });
}
