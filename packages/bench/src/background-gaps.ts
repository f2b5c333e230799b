/**
 * The event-loop gaps of a big load and of the background work after it, A/B in one run (issue #27
 * item 3: no stall over 100 ms from background work): per side and round, a child process
 * ({@link ./background-gaps-child.ts}) loads the generated catalog into an engine of its tree and records
 * every gap of at least `--record-ms` until the engine is idle. Sides run one at a time (a 1M load
 * each: two at once would share the 2 cores), alternating which goes first every round. With
 * `--profile-dir`, each child runs under `--cpu-prof` and every gap of at least `--name-ms` is named by
 * the functions the main thread was sampled in during it (self time; `stall-profile.js` reads the same
 * files for more). Prints, per side: the load's time, the time until idle, the gaps (count ≥ 50 and
 * ≥ 100 ms, the longest), and whether both sides answered a few searches alike once idle.
 *
 *   node packages/bench/dist/background-gaps.js [--a <tree>] [--b <tree>] [--products 1000000] [--rounds 1] [--data-dir] [--profile-dir <dir>] [--name-ms 100] [--record-ms 50]
 *
 * `--a` and `--b` are worktrees (built: packages/engine/dist); both default to this one (a lone run).
 * @module
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option } from './cli-option.js';
import { summarizeCpuProfile, type CpuProfile } from './cpu-profile-summary.js';
import type { StallWindow } from './event-loop-stalls.js';
import type { BackgroundGapsResult } from './background-gaps-child.js';

const roots = { A: resolve(option('a', '.')), B: resolve(option('b', '.')) };
const products = option('products', '1000000');
const rounds = Number(option('rounds', '1'));
const withDataDir = process.argv.includes('--data-dir');
const profileDir = option('profile-dir', '');
const nameMs = Number(option('name-ms', '100'));
const recordMs = option('record-ms', '50');
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

/** Runs one side's child; its result line, and the paths of its windows and main-thread profile. */
async function runSide(side: 'A' | 'B', round: number): Promise<{ result: BackgroundGapsResult; windowsFile: string; profileFile?: string }> {
  const dir = join(profileDir || join(process.env.TMPDIR ?? '/tmp', 'aisle-background-gaps'), `${side}-${round}`);
  mkdirSync(dir, { recursive: true });
  const windowsFile = join(dir, 'windows.json');
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const script = fileURLToPath(new URL(`./background-gaps-child${ext}`, import.meta.url));
  const args = [
    ...process.execArgv, '--max-old-space-size=8192', ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []),
    script, '--root', roots[side], '--windows', windowsFile, '--products', products, '--record-ms', recordMs, ...(withDataDir ? ['--data-dir'] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => { out += s; });
  const code = await new Promise<number | null>((res) => child.on('close', res));
  if (code !== 0) throw new Error(`side ${side} exited with ${code}: ${out}`);
  const result = JSON.parse(out.trim().split('\n').pop()!) as BackgroundGapsResult;
  // The main thread's profile: thread id 0 in --cpu-prof's file name (CPU.<date>.<time>.<pid>.<tid>.<seq>.cpuprofile).
  const profileFile = profileDir ? readdirSync(dir).find((f) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(f)) : undefined;
  return { result, windowsFile, profileFile: profileFile && join(dir, profileFile) };
}

/** Prints each gap of at least {@link nameMs} with the functions sampled on the main thread during it. */
function nameGaps(windowsFile: string, profileFile: string): void {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as CpuProfile;
  const windows = JSON.parse(readFileSync(windowsFile, 'utf8')) as StallWindow[];
  const spans = windows.filter((w) => w.change !== undefined);
  for (const w of windows) {
    const ms = (w.endUs - w.startUs) / 1000;
    if (w.change !== undefined || ms < nameMs) continue;
    const during = spans.find((s) => s.startUs <= w.startUs && w.startUs < s.endUs)?.change ?? '?';
    const cpu = w.cpuMs === undefined ? '' : ` (loop thread on a CPU ${w.cpuMs.toFixed(0)} ms, waiting ${w.waitMs?.toFixed(0)} ms)`;
    console.log(`    gap ${ms.toFixed(0)} ms, ${during}${cpu}:`);
    const top = summarizeCpuProfile(profile, { fromUs: w.startUs, toUs: w.endUs }).sort((a, b) => b.selfMs - a.selfMs).slice(0, 6);
    for (const t of top) console.log(`      self ${t.selfMs.toFixed(1).padStart(6)} ms  ${t.name}`);
  }
}

const f = (ms: number) => ms.toFixed(0);
const describe = (gaps: number[], ownMs: number) => `${gaps.filter((g) => g >= 50).length} ≥ 50 ms, ${gaps.filter((g) => g >= 100).length} ≥ 100 ms, ` +
  `longest ${gaps.length ? f(Math.max(...gaps)) : '< ' + recordMs} ms (longest less its wait for a CPU ${f(ownMs)} ms)`;

console.log(`background-gaps: ${products} generated products, ${withDataDir ? 'data directory' : 'no data directory'}, ${rounds} round(s); A ${roots.A}, B ${roots.B}; load ${load()}`);
const digests = new Set<string>();
for (let round = 1; round <= rounds; round++) {
  for (const side of round % 2 === 1 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
    const { result, windowsFile, profileFile } = await runSide(side, round);
    digests.add(result.answersDigest);
    console.log(`${side} round ${round} (load ${load()}): load ${(result.loadMs / 1000).toFixed(1)} s, gaps ${describe(result.loadGapsMs, result.loadOwnMs)}; ` +
      `after it ${(result.backgroundMs / 1000).toFixed(1)} s until idle, gaps ${describe(result.backgroundGapsMs, result.backgroundOwnMs)}; answers ${result.answersDigest}`);
    console.log(`    gaps after the load (ms): ${result.backgroundGapsMs.map(f).join(' ') || '-'}`);
    if (profileFile) nameGaps(windowsFile, profileFile);
  }
}
console.log(digests.size === 1 ? 'answers: the same on every run' : `answers DIFFER between runs: ${[...digests].join(' ')}`);
