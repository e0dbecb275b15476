import { peakRssMiB } from "../util/package-info.js";

/**
 * Wall time of a phase, the process's peak resident memory when it ended and the CPU time
 * (user + system) of all its threads during it: on a machine shared with other jobs the CPU
 * time, unlike the wall time, measures the work (absent in older work directories).
 */
export interface PhaseTiming {
  seconds: number;
  peakRssMiB: number;
  cpuSeconds?: number;
}

/** Process CPU time (user + system, every thread) in seconds since `from` (a `process.cpuUsage()`). */
export function cpuSecondsSince(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return Number(((used.user + used.system) / 1e6).toFixed(3));
}

export class PhaseClock {
  private readonly started = new Map<string, { t0: number; cpu: NodeJS.CpuUsage }>();
  private readonly done: Record<string, PhaseTiming> = {};

  start(phase: string): void {
    this.started.set(phase, { t0: performance.now(), cpu: process.cpuUsage() });
  }

  stop(phase: string): void {
    const from = this.started.get(phase);
    if (from === undefined) throw new Error(`phase ${phase} was not started`);
    this.done[phase] = { seconds: Number(((performance.now() - from.t0) / 1000).toFixed(3)), peakRssMiB: peakRssMiB(), cpuSeconds: cpuSecondsSince(from.cpu) };
  }

  timings(): Record<string, PhaseTiming> {
    return { ...this.done };
  }
}
