import { peakRssMiB } from "../util/package-info.js";
import { cpuSecondsSince, type PhaseTiming } from "../coordinator/phase-clock.js";
import { completedTasks, readMarker, writeMarker, type Slice } from "../coordinator/workdir.js";

/**
 * Times one slice of a phase and leaves it as a marker, so that the manifest can report
 * phases however they ran: locally in one process, resumed, or as Slurm array tasks.
 */
export async function timed<T>(workdir: string, phase: string, slice: Slice, work: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const cpu = process.cpuUsage();
  const result = await work();
  const timing: PhaseTiming = { seconds: Number(((performance.now() - t0) / 1000).toFixed(3)), peakRssMiB: peakRssMiB(), cpuSeconds: cpuSecondsSince(cpu) };
  await writeMarker(workdir, `time-${phase}-${slice.index}-of-${slice.count}`, timing);
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
