import { peakRssMiB } from "../util/package-info.js";
import { completedTasks, readMarker, writeMarker, type Slice } from "../workdir/layout.js";

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

/** Seconds since `t0` (performance.now()), to the millisecond as manifests report them. */
export function secondsSince(t0: number): number {
  return Number(((performance.now() - t0) / 1000).toFixed(3));
}

/** Process CPU time (user + system, every thread) in seconds since `from` (a `process.cpuUsage()`). */
export function cpuSecondsSince(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return Number(((used.user + used.system) / 1e6).toFixed(3));
}

/** When a piece of work began: wall clock and process CPU. */
interface Start {
  t0: number;
  cpu: NodeJS.CpuUsage;
}

function startNow(): Start {
  return { t0: performance.now(), cpu: process.cpuUsage() };
}

/** The timing of work begun at `from`, ending now. */
function timingSince(from: Start): PhaseTiming {
  return { seconds: secondsSince(from.t0), peakRssMiB: peakRssMiB(), cpuSeconds: cpuSecondsSince(from.cpu) };
}

/** Times the phases of a run in one process, for a manifest written by that process. */
export class PhaseClock {
  private readonly started = new Map<string, Start>();
  private readonly done: Record<string, PhaseTiming> = {};

  start(phase: string): void {
    this.started.set(phase, startNow());
  }

  stop(phase: string): void {
    const from = this.started.get(phase);
    if (from === undefined) throw new Error(`phase ${phase} was not started`);
    this.done[phase] = timingSince(from);
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
  const from = startNow();
  const result = await work();
  await writeMarker(workdir, `time-${phase}-${slice.index}-of-${slice.count}`, timingSince(from));
  return result;
}

/**
 * Timing of a phase from its markers: the slowest slice (slices run side by side), the
 * highest peak memory of any slice's process and the CPU time of all (when every slice has
 * it); undefined when no slice has run.
 */
export async function phaseTiming(workdir: string, phase: string): Promise<PhaseTiming | undefined> {
  let out: PhaseTiming | undefined;
  for (const task of (await completedTasks(workdir)).filter((n) => n.startsWith(`time-${phase}-`))) {
    const t = (await readMarker<PhaseTiming>(workdir, task)) as PhaseTiming;
    if (out === undefined) out = t;
    else {
      const cpu = out.cpuSeconds !== undefined && t.cpuSeconds !== undefined ? { cpuSeconds: Number((out.cpuSeconds + t.cpuSeconds).toFixed(3)) } : {};
      out = { seconds: Math.max(out.seconds, t.seconds), peakRssMiB: Math.max(out.peakRssMiB, t.peakRssMiB), ...cpu };
    }
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
