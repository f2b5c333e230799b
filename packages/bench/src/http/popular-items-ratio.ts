/**
 * Issue #27 item 4 in one run: `GET …/PopularItems?count=3` through the adapter against a bare
 * node:http server answering a constant (the hello world, its own process) and against a bare
 * node:http server making the same engine call (in the aisle server's process), autocannon with 50
 * connections. The three are loaded in rounds, the order rotating every round (hello, adapter, bare;
 * adapter, bare, hello; …), so a change of the machine's load weighs on all three alike; the ratios are
 * taken within each round and their median reported. With `--profile <dir>` the aisle server runs under
 * `node --cpu-prof` and the functions with the most time are printed (one profile per thread of the server process,
 * covering set-up, every round and both front ends).
 *
 * With `--a <tree>` (another worktree, installed and built) that tree's aisle server runs too, and its
 * adapter and bare server join the rotation: an A/B of the two trees in one run, against the same hello
 * world. Every load also reads the CPU of the server's threads from /proc (thread-cpu.ts: the main
 * thread, the busiest other one — the store's worker — and the rest, V8's helpers that collect garbage
 * among them), so where a request's CPU went shows per thread.
 *
 * Run: `node packages/bench/dist/http/popular-items-ratio.js [--products 100000] [--rounds 5] [--seconds 5] [--connections 50] [--profile <dir>] [--a <tree>]`
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { summarizeCpuProfile, type CpuProfile } from '../cpu-profile-summary.js';
import { load, startServer, type LoadResult, type RunningServer } from './index.js';
import { BENCH_WEBSITE } from '../peers/aisle.js';
import type { Scenario } from './scenarios.js';
import { option } from '../cli-option.js';

const products = Number(option('products', '100000'));
const rounds = Number(option('rounds', '5'));
const seconds = Number(option('seconds', '5'));
const connections = Number(option('connections', '50'));
const profileDir = option('profile', '');
/** Another tree (a worktree of main, installed and built): its aisle server is loaded in the same rounds (A), beside this tree's (B). */
const treeA = option('a', '');

const popular: Scenario = {
  name: 'PopularItems?count=3', server: 'aisle',
  requests: [{ method: 'GET', path: `/1.0/ClientRecom/${BENCH_WEBSITE.websiteId}/PopularItems?count=3` }],
};
const helloScenario: Scenario = { name: 'hello', server: 'hello', requests: [{ method: 'GET', path: '/' }] };

const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]!; };
const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

/** One aisle server's two front ends (adapter, bare engine server) with their results per round. */
interface Tree { label: string; server: RunningServer; adapter: LoadResult[]; bare: LoadResult[] }

async function main(): Promise<void> {
  const hello = await startServer({ kind: 'hello', products: 0, sessions: 0 });
  const input = { kind: 'aisle' as const, products, sessions: Math.min(20_000, Math.floor(products / 5)) };
  const trees: Tree[] = [];
  const helloRuns: LoadResult[] = [];
  try {
    trees.push({ label: treeA ? 'B (this tree)' : 'aisle', server: await startServer(input, profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), adapter: [], bare: [] });
    if (treeA) {
      trees.push({ label: `A (${treeA})`, server: await startServer(input, [], join(treeA, 'packages/bench/dist/http/server-child.js')), adapter: [], bare: [] });
    }
    // Every side loaded once a round, in an order rotating every round: a change of the machine's load weighs on all alike.
    const sides: (() => Promise<void>)[] = [async () => { helloRuns.push(await load(hello, helloScenario, seconds, connections)); }];
    for (const t of trees) {
      sides.push(async () => { t.adapter.push(await load(t.server, popular, seconds, connections)); });
      sides.push(async () => { t.bare.push(await load(t.server, popular, seconds, connections, t.server.bareRecommendUrl)); });
    }
    // Warm-up: the engines' caches, the JIT and the connections of every front end.
    for (const t of trees) {
      await load(t.server, popular, 2, connections);
      await load(t.server, popular, 2, connections, t.server.bareRecommendUrl);
    }
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < sides.length; k++) await sides[(k + round) % sides.length]!();
      const h = helloRuns[round]!;
      console.log(`round ${round + 1} (load ${loadavg()[0]!.toFixed(1)}): hello ${Math.round(h.requestsPerSecond)} req/s, ${h.cpuUsPerRequest.toFixed(1)} µs/req`);
      for (const t of trees) {
        const a = t.adapter[round]!;
        const b = t.bare[round]!;
        console.log(`  ${t.label}: adapter ${Math.round(a.requestsPerSecond)}, bare engine ${Math.round(b.requestsPerSecond)} req/s; `
          + `adapter/hello ${pct(a.requestsPerSecond / h.requestsPerSecond)}, adapter/bare ${pct(a.requestsPerSecond / b.requestsPerSecond)}; `
          + `CPU µs/req adapter ${a.cpuUsPerRequest.toFixed(1)} (${threads(a)}), bare ${b.cpuUsPerRequest.toFixed(1)}; engine µs/call ${a.engineUsPerRequest.toFixed(1)}; non-2xx ${a.non2xx + b.non2xx}`);
      }
    }
  } finally {
    for (const t of trees) await t.server.stop();
    await hello.stop();
  }
  const rate = (x: LoadResult) => x.requestsPerSecond;
  console.log(`\nmedian of ${rounds} rounds (${seconds} s each, ${connections} connections, ${products.toLocaleString('en-US')} products; load ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end):`);
  console.log('| tree | hello req/s | adapter req/s | bare engine req/s | adapter / hello | adapter / bare engine | adapter CPU µs/req | bare engine CPU µs/req | hello CPU µs/req | adapter CPU µs/req by thread (main, busiest other thread, the rest) |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const t of trees) {
    const split = t.adapter.map(byThread);
    console.log(`| ${t.label} | ${Math.round(median(helloRuns.map(rate)))} | ${Math.round(median(t.adapter.map(rate)))} | ${Math.round(median(t.bare.map(rate)))} `
      + `| ${pct(median(t.adapter.map((r, i) => rate(r) / rate(helloRuns[i]!))))} | ${pct(median(t.adapter.map((r, i) => rate(r) / rate(t.bare[i]!))))} `
      + `| ${median(t.adapter.map((r) => r.cpuUsPerRequest)).toFixed(1)} | ${median(t.bare.map((r) => r.cpuUsPerRequest)).toFixed(1)} | ${median(helloRuns.map((r) => r.cpuUsPerRequest)).toFixed(1)} `
      + `| main ${median(split.map((x) => x.main)).toFixed(1)}, busiest other ${median(split.map((x) => x.busiest)).toFixed(1)}, rest ${median(split.map((x) => x.rest)).toFixed(1)} |`);
  }
  if (profileDir) printProfile(profileDir);
}

/** A load's CPU per request: the main thread, the busiest other thread (the store's worker under load) and the rest. */
function byThread(r: LoadResult): { main: number; busiest: number; rest: number } {
  const others = Object.entries(r.threadUsPerRequest).filter(([name]) => name !== 'main').map(([, us]) => us).sort((a, b) => b - a);
  return { main: r.threadUsPerRequest.main ?? NaN, busiest: others[0] ?? 0, rest: others.slice(1).reduce((a, b) => a + b, 0) };
}

function threads(r: LoadResult): string {
  const t = byThread(r);
  return `main ${t.main.toFixed(1)}, busiest other ${t.busiest.toFixed(1)}, rest ${t.rest.toFixed(1)}`;
}

/** Every profile in `dir` (one per thread of the server): the functions with the most self time, then the most total time. */
function printProfile(dir: string): void {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort()) {
    const times = summarizeCpuProfile(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile);
    console.log(`\n${file}: by self time (ms)`);
    for (const t of [...times].sort((a, b) => b.selfMs - a.selfMs).slice(0, 40)) console.log(`${t.selfMs.toFixed(0).padStart(7)} ${t.totalMs.toFixed(0).padStart(7)}  ${t.name}`);
    console.log('\nby total time (ms)');
    for (const t of times.slice(0, 70)) console.log(`${t.selfMs.toFixed(0).padStart(7)} ${t.totalMs.toFixed(0).padStart(7)}  ${t.name}`);
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
