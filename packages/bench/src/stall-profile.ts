/**
 * What held the event loop: for each stall of a `--stall-windows` file (catalog-change-visibility.ts),
 * the functions a `--cpu-prof` profile of the same process sampled on the main thread during it (both on
 * the clock of `process.hrtime`), by self and by total time — so that a stall is named by what ran, not
 * guessed from what was going on. With `--changes`, each measured change of at least `--min-ms` (up to
 * 5 s: not the rebuilds) as a timeline instead: what ran, one run of samples after the other (runs under
 * 1 ms left out), to see what besides the change itself held the thread until the change was visible.
 *
 *   node packages/bench/dist/stall-profile.js <file.cpuprofile> <windows.json> [--top 12] [--min-ms 50] [--changes]
 * @module
 */
import { readFileSync } from 'node:fs';
import type { StallWindow } from './event-loop-stalls.js';
import { profileTimeline, summarizeCpuProfile, type CpuProfile } from './cpu-profile-summary.js';
import { option } from './cli-option.js';

const [profileFile, windowsFile] = process.argv.slice(2).filter((a) => !a.startsWith('--') && !/^\d+$/.test(a));
if (!profileFile || !windowsFile) {
  console.error('usage: stall-profile <file.cpuprofile> <windows.json> [--top 12] [--min-ms 50] [--changes]');
  process.exit(2);
}
const top = Number(option('top', '12'));
const minMs = Number(option('min-ms', '50'));
const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as CpuProfile;
const windows = JSON.parse(readFileSync(windowsFile, 'utf8')) as (StallWindow & { change?: string })[];
if (profile.startTime === undefined) throw new Error(`${profileFile} has no startTime: not a V8 CPU profile`);

// The change each stall happened in (the windows labelled `change` span a measured change).
const changes = windows.filter((w) => w.change !== undefined);
/** Changes longer than this are the rebuilds (seconds): a timeline of them would be thousands of lines. */
const TIMELINE_MAX_MS = 5000;
if (process.argv.includes('--changes')) {
  for (const c of changes) {
    const ms = (c.endUs - c.startUs) / 1000;
    if (ms < minMs || ms > TIMELINE_MAX_MS) continue;
    console.log(`\n== ${c.change}: visible after ${ms.toFixed(0)} ms`);
    for (const run of profileTimeline(profile, { fromUs: c.startUs, toUs: c.endUs })) {
      if (run.ms >= 1) console.log(`   +${run.atMs.toFixed(0).padStart(4)} ms ${run.ms.toFixed(1).padStart(6)} ms  ${run.label}`);
    }
  }
  process.exit(0);
}
for (const w of windows) {
  if (w.change !== undefined || (w.endUs - w.startUs) / 1000 < minMs) continue;
  const during = changes.find((c) => c.startUs <= w.startUs && w.endUs <= c.endUs)?.change ?? '(between changes)';
  const ms = (w.endUs - w.startUs) / 1000;
  const cpu = w.cpuMs === undefined ? '' : `, loop thread on a CPU ${w.cpuMs.toFixed(0)} ms, waiting ${w.waitMs?.toFixed(0)} ms`;
  console.log(`\n== stall ${ms.toFixed(0)} ms during ${during}${cpu}`);
  const times = summarizeCpuProfile(profile, { fromUs: w.startUs, toUs: w.endUs });
  const sampled = times.reduce((s, t) => s + t.selfMs, 0);
  console.log(`   sampled on the main thread: ${sampled.toFixed(0)} ms`);
  for (const t of [...times].sort((a, b) => b.selfMs - a.selfMs).slice(0, top)) console.log(`   self ${t.selfMs.toFixed(1).padStart(7)} ms  ${t.name}`);
  console.log('   -- total');
  for (const t of times.slice(0, top)) console.log(`   total ${t.totalMs.toFixed(1).padStart(6)} ms  ${t.name}`);
}
