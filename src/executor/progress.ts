import type cliProgressModule from "cli-progress";
import { requireCjs } from "../util/require-cjs.js";

/** Where the coordinator reports: one line per event, to stderr. */
export interface Reporter {
  info(message: string): void;
  progress(phase: string, unit: string, total?: number): ProgressBar;
}

export interface ProgressBar {
  /** Sets the amount done so far (in the phase's unit). */
  update(done: number): void;
  finish(): void;
}

const LOG_INTERVAL_MS = 5_000;

function rate(done: number, ms: number): string {
  return ms > 0 ? `${Math.round((done * 1000) / ms)}/s` : "-";
}

/**
 * On a terminal: a progress bar per phase (rate, ETA). Otherwise (a log file, a Slurm
 * job): a plain line at most every five seconds, so logs stay readable.
 */
export function stderrReporter(forcePlain = false): Reporter {
  const tty = !forcePlain && process.stderr.isTTY === true;
  return {
    info: (message) => process.stderr.write(`vertdup: ${message}\n`),
    progress(phase, unit, total) {
      const start = Date.now();
      if (tty) {
        const cliProgress = requireCjs("cli-progress") as typeof cliProgressModule;
        const format =
          total === undefined
            ? `${phase} | {value} ${unit} | {rate} | {duration_formatted}`
            : `${phase} [{bar}] {percentage}% | {value}/{total} ${unit} | {rate} | ETA {eta_formatted}`;
        const bar = new cliProgress.SingleBar(
          { format, stream: process.stderr, hideCursor: true, etaBuffer: 50 },
          cliProgress.Presets.shades_classic,
        );
        bar.start(total ?? 0, 0, { rate: "-" });
        return {
          update: (done) => bar.update(done, { rate: `${rate(done, Date.now() - start)} ${unit}` }),
          finish: () => bar.stop(),
        };
      }
      let last = start;
      let latest = 0;
      const line = (done: number) => {
        const ms = Date.now() - start;
        const of = total === undefined ? "" : `/${total}`;
        const eta = total !== undefined && done > 0 ? `, ETA ${Math.round(((total - done) * ms) / done / 1000)} s` : "";
        process.stderr.write(`vertdup: ${phase}: ${done}${of} ${unit} (${rate(done, ms)}${eta})\n`);
      };
      return {
        update(done) {
          latest = done;
          const now = Date.now();
          if (now - last >= LOG_INTERVAL_MS) {
            last = now;
            line(done);
          }
        },
        finish: () => line(latest),
      };
    },
  };
}

/** A reporter that says nothing (library use, tests). */
export const silentReporter: Reporter = {
  info: () => undefined,
  progress: () => ({ update: () => undefined, finish: () => undefined }),
};
