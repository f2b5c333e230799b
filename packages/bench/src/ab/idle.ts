/**
 * Waiting for a process's background work (after a catalog load: the recommendation indexes, built in
 * slices on the main thread) before timing searches or reading the memory.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/**
 * Resolves once, for a second, the process used under `maxShare` of a core and its event loop was busy
 * under `maxShare` of the time (at most `maxSeconds` s). CPU time alone read a starved process as idle:
 * at load ~24 on the 2 cores, a 1M engine building its indexes in slices got under 5 % of a core for a
 * second and the bench read its memory mid-build; the loop's busy share counts a slice as busy however
 * little CPU the machine gave it.
 */
export async function waitForIdle(maxShare = 0.05, maxSeconds = 600): Promise<void> {
  for (let waited = 0; waited < maxSeconds; waited++) {
    const before = process.cpuUsage();
    const loop = performance.eventLoopUtilization();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const used = process.cpuUsage(before);
    const busy = performance.eventLoopUtilization(loop).utilization;
    if (used.user + used.system < maxShare * 1e6 && busy < maxShare) return;
  }
}

/** Threads of V8's CPU profiler (`--cpu-prof`): a few % of a core each, busy as long as the profiler runs. */
const PROFILER_THREAD = 'v8:ProfEvntProc';

/**
 * CPU time so far (ms, in clock ticks of 10 ms) of the process's threads other than the main one and
 * the profiler's (Linux: /proc/self/task); NaN elsewhere.
 */
function otherThreadsCpuMs(): number {
  try {
    let ticks = 0;
    for (const tid of readdirSync('/proc/self/task')) {
      if (Number(tid) === process.pid) continue;
      try {
        if (readFileSync(`/proc/self/task/${tid}/comm`, 'latin1').trim() === PROFILER_THREAD) continue;
        // Fields 14 and 15 (utime, stime) after the command, which may hold spaces: counted from its ')'.
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        // A thread that ended between the listing and the read used no more CPU.
      }
    }
    return ticks * 10;
  } catch {
    return NaN;
  }
}

/**
 * {@link waitForIdle} while a `setImmediate` chain watches the loop (event-loop-stalls.ts), which spins
 * the main thread so that neither its CPU time nor the loop's busy share ever looks idle: resolves
 * once, for `quietSeconds` seconds in a row, the loop was held by other work (`heldMs`, see
 * `StallWatch.heldMs`) under `maxShare` of the time and the process's other threads (workers, the
 * collector's helpers, file I/O; not the CPU profiler's, whose few % of a core each never stop while
 * it runs) used under `maxShare` of a core (at most `maxSeconds` s). Without /proc (not Linux) the
 * other threads are not checked.
 */
export async function waitForIdleWhileWatching(heldMs: () => number, maxShare = 0.05, quietSeconds = 2, maxSeconds = 900): Promise<void> {
  let quiet = 0;
  for (let waited = 0; waited < maxSeconds; waited++) {
    const othersBefore = otherThreadsCpuMs();
    const heldBefore = heldMs();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const othersMs = otherThreadsCpuMs() - othersBefore;
    const quietNow = heldMs() - heldBefore < maxShare * 1000 && !(othersMs >= maxShare * 1000);
    quiet = quietNow ? quiet + 1 : 0;
    if (quiet >= quietSeconds) return;
  }
}
