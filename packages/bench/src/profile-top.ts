/**
 * The functions with the most time in a V8 CPU profile (`node --cpu-prof`), as shares of the thread's
 * busy time (its samples that are not idle): by self time, with each one's total time beside it. With
 * `--last <fraction>`, only the samples of the profile's last part (a bench's measured rounds after its
 * set-up), e.g. `--last 0.5`.
 *
 * Run: `node packages/bench/dist/profile-top.js <file.cpuprofile> [--last 1] [--top 40]`
 * @module
 */
import { readFileSync } from 'node:fs';
import { option } from './cli-option.js';
import { summarizeCpuProfile, type CpuProfile } from './cpu-profile-summary.js';

const file = process.argv[2];
const last = Number(option('last', '1'));
const top = Number(option('top', '40'));

if (file === undefined || file.startsWith('--')) {
  console.error('usage: profile-top.js <file.cpuprofile> [--last <fraction>] [--top <n>]');
  process.exitCode = 2;
} else {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile & { endTime: number; startTime: number };
  const span = profile.endTime - profile.startTime;
  const times = summarizeCpuProfile(profile, { fromUs: profile.endTime - span * last, toUs: profile.endTime });
  const idle = times.find((t) => t.name.startsWith('(idle)'))?.selfMs ?? 0;
  const all = times.find((t) => t.name.startsWith('(root)'))?.totalMs ?? 0;
  const busy = all - idle;
  console.log(`${(busy / 1000).toFixed(2)} s busy of ${(all / 1000).toFixed(2)} s sampled; self % and total % of the busy time:`);
  for (const t of [...times].filter((t) => !t.name.startsWith('(idle)') && !t.name.startsWith('(root)')).sort((a, b) => b.selfMs - a.selfMs).slice(0, top)) {
    console.log(`${(100 * t.selfMs / busy).toFixed(1).padStart(5)} ${(100 * t.totalMs / busy).toFixed(1).padStart(5)}  ${t.name}`);
  }
}
