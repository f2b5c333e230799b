/**
 * Waiting for a process's background work (after a catalog load: the recommendation indexes, built in
 * slices on the main thread) before timing searches.
 * @module
 */

/** Resolves once the process used under `maxShare` of a core for a second (at most `maxSeconds` s). */
export async function waitForIdle(maxShare = 0.05, maxSeconds = 600): Promise<void> {
  for (let waited = 0; waited < maxSeconds; waited++) {
    const before = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const used = process.cpuUsage(before);
    if (used.user + used.system < maxShare * 1e6) return;
  }
}
