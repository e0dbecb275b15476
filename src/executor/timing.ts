import { peakRssMiB } from "../util/package-info.js";
import { completedTasks, readMarker, writeMarker, type Slice } from "../coordinator/workdir.js";

/** Wall time of a phase and the process's peak resident memory when it ended. */
export interface PhaseTiming {
  seconds: number;
  peakRssMiB: number;
}

/** Seconds since `t0` (performance.now()), to the millisecond as manifests report them. */
export function secondsSince(t0: number): number {
  return Number(((performance.now() - t0) / 1000).toFixed(3));
}

/** The timing of work begun at `t0`, ending now. */
function timingSince(t0: number): PhaseTiming {
  return { seconds: secondsSince(t0), peakRssMiB: peakRssMiB() };
}

/** Times the phases of a run in one process, for a manifest written by that process. */
export class PhaseClock {
  private readonly started = new Map<string, number>();
  private readonly done: Record<string, PhaseTiming> = {};

  start(phase: string): void {
    this.started.set(phase, performance.now());
  }

  stop(phase: string): void {
    const t0 = this.started.get(phase);
    if (t0 === undefined) throw new Error(`phase ${phase} was not started`);
    this.done[phase] = timingSince(t0);
  }

  timings(): Record<string, PhaseTiming> {
    return { ...this.done };
  }
}

/**
 * Times one slice of a phase and leaves it as a marker, so that the manifest can report
 * phases however they ran: locally in one process, resumed, or as Slurm array tasks.
 */
export async function timed<T>(workdir: string, phase: string, slice: Slice, work: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const result = await work();
  await writeMarker(workdir, `time-${phase}-${slice.index}-of-${slice.count}`, timingSince(t0));
  return result;
}

/**
 * Timing of a phase from its markers: the slowest slice (slices run side by side) and the
 * highest peak memory of any slice's process; undefined when no slice has run.
 */
export async function phaseTiming(workdir: string, phase: string): Promise<PhaseTiming | undefined> {
  let out: PhaseTiming | undefined;
  for (const task of (await completedTasks(workdir)).filter((n) => n.startsWith(`time-${phase}-`))) {
    const t = (await readMarker<PhaseTiming>(workdir, task)) as PhaseTiming;
    out = out === undefined ? t : { seconds: Math.max(out.seconds, t.seconds), peakRssMiB: Math.max(out.peakRssMiB, t.peakRssMiB) };
  }
  return out;
}

/** Timings of the named phases that have run. */
export async function phaseTimings(workdir: string, phases: readonly string[]): Promise<Record<string, PhaseTiming>> {
  const out: Record<string, PhaseTiming> = {};
  for (const phase of phases) {
    const t = await phaseTiming(workdir, phase);
    if (t !== undefined) out[phase] = t;
  }
  return out;
}
