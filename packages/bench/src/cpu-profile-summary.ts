/**
 * Where a V8 CPU profile (`node --cpu-prof`, a `.cpuprofile` file) spent its time, per function: self
 * time (samples at the top of the stack) and total time (samples with the function anywhere in the
 * stack, counted once per sample however deep it recurses).
 * @module
 */

/** The parts of a `.cpuprofile` read here (the Chrome DevTools Protocol's `Profiler.Profile`). */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  /** Microseconds since the previous sample (the first since `startTime`). */
  timeDeltas: number[];
  /** When profiling started, µs on the clock of `process.hrtime` (Linux: the monotonic clock). */
  startTime?: number;
}

/** An interval on the profile's clock (µs, as `startTime`): only the samples taken in it are summed. */
export interface ProfileWindow { fromUs: number; toUs: number }

/** One function's time in a profile (ms). */
export interface FunctionTime { name: string; selfMs: number; totalMs: number }

/** `name (file:line)`, the file without its directories. */
function label(frame: CpuProfile['nodes'][number]['callFrame']): string {
  const file = frame.url.slice(frame.url.lastIndexOf('/') + 1);
  return `${frame.functionName || '(anonymous)'}${file ? ` (${file}:${frame.lineNumber + 1})` : ''}`;
}

/**
 * Self and total time per function, by total time descending; with `window`, of the samples taken in it
 * only (a profile without `startTime` has none there). Pure.
 */
export function summarizeCpuProfile(profile: CpuProfile, window?: ProfileWindow): FunctionTime[] {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const times = new Map<string, FunctionTime>();
  const at = (name: string): FunctionTime => {
    let t = times.get(name);
    if (!t) times.set(name, t = { name, selfMs: 0, totalMs: 0 });
    return t;
  };
  let takenUs = profile.startTime ?? NaN;
  profile.samples.forEach((id, i) => {
    takenUs += profile.timeDeltas[i] ?? 0;
    if (window && !(takenUs >= window.fromUs && takenUs < window.toUs)) return;
    // A sample's time is the delta to the next sample (the last one's is unknown: counted as 0).
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const top = byId.get(id);
    if (!top) return;
    at(label(top.callFrame)).selfMs += ms;
    const seen = new Set<string>();
    for (let node: number | undefined = id; node !== undefined; node = parent.get(node)) {
      const name = label(byId.get(node)!.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      at(name).totalMs += ms;
    }
  });
  return [...times.values()].sort((a, b) => b.totalMs - a.totalMs);
}
