import { peakRssMiB } from "../util/package-info.js";

/** Wall time of a phase and the process's peak resident memory when it ended. */
export interface PhaseTiming {
  seconds: number;
  peakRssMiB: number;
}

export class PhaseClock {
  private readonly started = new Map<string, number>();
  private readonly done: Record<string, PhaseTiming> = {};

  start(phase: string): void {
    this.started.set(phase, performance.now());
  }

  stop(phase: string): void {
    const t0 = this.started.get(phase);
    if (t0 === undefined) throw new Error(`phase ${phase} was not started`);
    this.done[phase] = { seconds: Number(((performance.now() - t0) / 1000).toFixed(3)), peakRssMiB: peakRssMiB() };
  }

  timings(): Record<string, PhaseTiming> {
    return { ...this.done };
  }
}
