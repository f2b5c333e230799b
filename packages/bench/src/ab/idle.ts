/**
 * Waiting for a process's background work (after a catalog load: the recommendation indexes, built in
 * slices on the main thread) before timing searches or reading the memory.
 * @module
 */
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
