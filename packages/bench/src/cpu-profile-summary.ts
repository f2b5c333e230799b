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

type ProfileNode = CpuProfile['nodes'][number];

/** The profile's nodes by id, and each node's parent. */
function profileTree(profile: CpuProfile): { byId: Map<number, ProfileNode>; parent: Map<number, number> } {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  return { byId, parent };
}

/**
 * Each sample taken in `window` (every sample without one; none without `startTime`), in order: the
 * node on top of its stack, its time (the delta to the next sample; the last one's is unknown: 0) and
 * when it was taken (µs on the clock of `startTime`).
 */
function forEachSample(
  profile: CpuProfile, byId: ReadonlyMap<number, ProfileNode>, window: ProfileWindow | undefined,
  visit: (top: ProfileNode, ms: number, takenUs: number) => void,
): void {
  let takenUs = profile.startTime ?? NaN;
  profile.samples.forEach((id, i) => {
    takenUs += profile.timeDeltas[i] ?? 0;
    if (window && !(takenUs >= window.fromUs && takenUs < window.toUs)) return;
    const top = byId.get(id);
    if (top) visit(top, (profile.timeDeltas[i + 1] ?? 0) / 1000, takenUs);
  });
}

/** `name (file:line)`, the file without its directories. */
function label(frame: ProfileNode['callFrame']): string {
  const file = frame.url.slice(frame.url.lastIndexOf('/') + 1);
  return `${frame.functionName || '(anonymous)'}${file ? ` (${file}:${frame.lineNumber + 1})` : ''}`;
}

/**
 * Self and total time per function, by total time descending; with `window`, of the samples taken in it
 * only (a profile without `startTime` has none there). Pure.
 */
export function summarizeCpuProfile(profile: CpuProfile, window?: ProfileWindow): FunctionTime[] {
  const { byId, parent } = profileTree(profile);
  const times = new Map<string, FunctionTime>();
  const at = (name: string): FunctionTime => {
    let t = times.get(name);
    if (!t) times.set(name, t = { name, selfMs: 0, totalMs: 0 });
    return t;
  };
  forEachSample(profile, byId, window, (top, ms) => {
    at(label(top.callFrame)).selfMs += ms;
    const seen = new Set<string>();
    for (let node: number | undefined = top.id; node !== undefined; node = parent.get(node)) {
      const name = label(byId.get(node)!.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      at(name).totalMs += ms;
    }
  });
  return [...times.values()].sort((a, b) => b.totalMs - a.totalMs);
}

/** A run of consecutive samples with the same {@link timelineLabel}: when it began (ms into the window), its length. */
export interface TimelineRun { atMs: number; ms: number; label: string }

/** What a sample ran, for a timeline (see {@link profileTimeline}). */
function timelineLabel(stack: ProfileNode['callFrame'][]): string {
  const top = stack[stack.length - 1]!;
  // The collector, the idle loop and V8's own work are named as such.
  if (top.functionName.startsWith('(')) return top.functionName;
  const short = (frames: typeof stack): string => frames.map((f) => label(f).replace(/ \((.*?)\.[jt]s:(\d+)\)$/, '@$1:$2')).join(' > ');
  // A time-sliced runner's work: named by the engine's frames under the slice loop (which build, which step).
  const slice = stack.findIndex((f) => f.functionName === 'runSlices');
  const own = (from: number): typeof stack => stack.slice(from).filter((f) => f.url.includes('/engine/')).slice(0, 3);
  if (slice >= 0) return `slice: ${short(own(slice + 1))} | ${short([top])}`;
  return `${short(stack.filter((f) => f.url !== '' && !f.url.startsWith('node:')).slice(0, 3))} | ${short([top])}`;
}

/**
 * The samples taken in `window`, in order, as runs of what ran (a time-sliced runner's work named by
 * the frames under its slice loop, else by the outermost frames of the stack, with the function on top):
 * what held the thread during a catalog change, one after the other. Pure.
 */
export function profileTimeline(profile: CpuProfile, window: ProfileWindow): TimelineRun[] {
  const { byId, parent } = profileTree(profile);
  const labels = new Map<number, string>();
  const labelOf = (id: number): string => {
    let l = labels.get(id);
    if (l === undefined) {
      const stack: ProfileNode['callFrame'][] = [];
      for (let node: number | undefined = id; node !== undefined; node = parent.get(node)) stack.push(byId.get(node)!.callFrame);
      labels.set(id, l = timelineLabel(stack.reverse()));
    }
    return l;
  };
  const runs: TimelineRun[] = [];
  forEachSample(profile, byId, window, (top, ms, takenUs) => {
    const l = labelOf(top.id);
    const last = runs[runs.length - 1];
    if (last?.label === l) last.ms += ms;
    else runs.push({ atMs: (takenUs - window.fromUs) / 1000, ms, label: l });
  });
  return runs;
}
