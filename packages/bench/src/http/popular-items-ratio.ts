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
 * Run: `node packages/bench/dist/http/popular-items-ratio.js [--products 100000] [--rounds 5] [--seconds 5] [--connections 50] [--profile <dir>]`
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarizeCpuProfile, type CpuProfile } from '../cpu-profile-summary.js';
import { load, startServer, type LoadResult } from './index.js';
import { BENCH_WEBSITE } from '../peers/aisle.js';
import type { Scenario } from './scenarios.js';
import { option } from '../cli-option.js';

const products = Number(option('products', '100000'));
const rounds = Number(option('rounds', '5'));
const seconds = Number(option('seconds', '5'));
const connections = Number(option('connections', '50'));
const profileDir = option('profile', '');

const popular: Scenario = {
  name: 'PopularItems?count=3', server: 'aisle',
  requests: [{ method: 'GET', path: `/1.0/ClientRecom/${BENCH_WEBSITE.websiteId}/PopularItems?count=3` }],
};
const helloScenario: Scenario = { name: 'hello', server: 'hello', requests: [{ method: 'GET', path: '/' }] };

const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]!; };

async function main(): Promise<void> {
  const hello = await startServer({ kind: 'hello', products: 0, sessions: 0 });
  const aisle = await startServer({ kind: 'aisle', products, sessions: Math.min(20_000, Math.floor(products / 5)) },
    profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
  const sides: Record<'hello' | 'adapter' | 'bare', () => Promise<LoadResult>> = {
    hello: () => load(hello, helloScenario, seconds, connections),
    adapter: () => load(aisle, popular, seconds, connections),
    bare: () => load(aisle, popular, seconds, connections, aisle.bareRecommendUrl),
  };
  const order = ['hello', 'adapter', 'bare'] as const;
  const perRound: { hello: LoadResult; adapter: LoadResult; bare: LoadResult }[] = [];
  try {
    // Warm-up: the engine's caches, the JIT and the connections of both front ends.
    await load(aisle, popular, 2, connections);
    await load(aisle, popular, 2, connections, aisle.bareRecommendUrl);
    for (let round = 0; round < rounds; round++) {
      const got: Partial<Record<(typeof order)[number], LoadResult>> = {};
      for (let k = 0; k < order.length; k++) {
        const side = order[(k + round) % order.length]!;
        got[side] = await sides[side]();
      }
      const r = got as { hello: LoadResult; adapter: LoadResult; bare: LoadResult };
      perRound.push(r);
      console.log(`round ${round + 1}: hello ${Math.round(r.hello.requestsPerSecond)}, adapter ${Math.round(r.adapter.requestsPerSecond)}, `
        + `bare engine ${Math.round(r.bare.requestsPerSecond)} req/s; adapter/hello ${(100 * r.adapter.requestsPerSecond / r.hello.requestsPerSecond).toFixed(0)}%, `
        + `adapter/bare ${(100 * r.adapter.requestsPerSecond / r.bare.requestsPerSecond).toFixed(0)}%; CPU µs/req adapter ${r.adapter.cpuUsPerRequest.toFixed(1)}, `
        + `bare ${r.bare.cpuUsPerRequest.toFixed(1)}, hello ${r.hello.cpuUsPerRequest.toFixed(1)}; engine µs/call ${r.adapter.engineUsPerRequest.toFixed(1)}; non-2xx ${r.adapter.non2xx + r.bare.non2xx}`);
    }
  } finally {
    await aisle.stop();
    await hello.stop();
  }
  const rate = (x: LoadResult) => x.requestsPerSecond;
  console.log(`\nmedian of ${rounds} rounds (${seconds} s each, ${connections} connections, ${products.toLocaleString('en-US')} products):`);
  console.log(`| hello req/s | adapter req/s | bare engine req/s | adapter / hello | adapter / bare engine | adapter CPU µs/req | bare engine CPU µs/req | hello CPU µs/req |`);
  console.log(`| ${Math.round(median(perRound.map((r) => rate(r.hello))))} | ${Math.round(median(perRound.map((r) => rate(r.adapter))))} | ${Math.round(median(perRound.map((r) => rate(r.bare))))} `
    + `| ${(100 * median(perRound.map((r) => rate(r.adapter) / rate(r.hello)))).toFixed(0)}% | ${(100 * median(perRound.map((r) => rate(r.adapter) / rate(r.bare)))).toFixed(0)}% `
    + `| ${median(perRound.map((r) => r.adapter.cpuUsPerRequest)).toFixed(1)} | ${median(perRound.map((r) => r.bare.cpuUsPerRequest)).toFixed(1)} | ${median(perRound.map((r) => r.hello.cpuUsPerRequest)).toFixed(1)} |`);
  if (profileDir) printProfile(profileDir);
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
