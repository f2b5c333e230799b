/**
 * Issue #27 item 4 in one run: `GET …/PopularItems?count=3` through the adapter against a bare
 * node:http server answering a constant (the hello world, its own process) and against a bare
 * node:http server making the same engine call (in the aisle server's process), autocannon with 50
 * connections. All are loaded in rounds, the order rotating every round (hello, constant, adapter, bare;
 * constant, adapter, bare, hello; …), so a change of the machine's load weighs on all alike; the ratios are
 * taken within each round and their median reported. With `--profile <dir>` the aisle server runs under
 * `node --cpu-prof` and the functions with the most time are printed (one profile per thread of the server process,
 * covering set-up, every round and both front ends).
 *
 * The ceiling for this answer is loaded in the same rounds: a bare node:http server sending the adapter's
 * own answer (captured once from this tree's adapter: the same headers, the x-request-id among them,
 * and the same ~700-byte body), constant, doing no other work. Hello world against that constant says
 * what the answer's size costs node:http, the socket and the load generator; the constant against the
 * adapter says what aisle's own work costs. The load generator (autocannon) runs in this process and
 * takes CPU from the same two cores: its CPU per request is read for every load and printed beside
 * the server's, and so are the waits for work of both main threads per request (thread-cpu.ts,
 * `mainThreadWaits`): how many requests each wake-up found ready.
 *
 * With `--a <tree>` (another worktree, installed and built) that tree's aisle server runs too, and its
 * adapter and bare server join the rotation: an A/B of the two trees in one run, against the same hello
 * world. Every load also reads the CPU of the server's threads from /proc (thread-cpu.ts: the main
 * thread, the busiest other one — the store's worker — and the rest, V8's helpers that collect garbage
 * among them), so where a request's CPU went shows per thread.
 *
 * With `--spin 5,10,15` constant servers that busy-wait that many µs before each answer join the rounds:
 * the rate a server with that much work of its own reaches here, i.e. the budget a ratio leaves.
 *
 * Run: `node packages/bench/dist/http/popular-items-ratio.js [--products 100000] [--rounds 5] [--seconds 5] [--connections 50] [--profile <dir>] [--a <tree>] [--spin <µs,…>]`
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { summarizeCpuProfile, type CpuProfile } from '../cpu-profile-summary.js';
import { load, startServer, type LoadResult, type RunningServer } from './index.js';
import { BENCH_WEBSITE } from '../peers/aisle.js';
import type { Scenario } from './scenarios.js';
import type { ConstantAnswer } from './server-child.js';
import { option } from '../cli-option.js';

const products = Number(option('products', '100000'));
const rounds = Number(option('rounds', '5'));
const seconds = Number(option('seconds', '5'));
const connections = Number(option('connections', '50'));
const profileDir = option('profile', '');
/** Another tree (a worktree of main, installed and built): its aisle server is loaded in the same rounds (A), beside this tree's (B). */
const treeA = option('a', '');
/**
 * Constant servers that busy-wait this many µs before each answer (a comma-separated list), loaded in the
 * same rounds: the rate a server doing that much work of its own per request reaches on this machine,
 * autocannon beside it — the budget a 60 % ratio leaves.
 */
const spins = option('spin', '').split(',').filter((x) => x !== '').map(Number);

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
  const constantRuns: LoadResult[] = [];
  let constant: RunningServer | undefined;
  const spinning: { us: number; server: RunningServer; runs: LoadResult[] }[] = [];
  try {
    trees.push({ label: treeA ? 'B (this tree)' : 'aisle', server: await startServer(input, profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), adapter: [], bare: [] });
    if (treeA) {
      trees.push({ label: `A (${treeA})`, server: await startServer(input, [], join(treeA, 'packages/bench/dist/http/server-child.js')), adapter: [], bare: [] });
    }
    const answer = await captureAnswer(trees[0]!.server.url + popular.requests[0]!.path);
    constant = await startServer({ kind: 'constant', products: 0, sessions: 0, answer });
    const constantServer = constant;
    console.log(`the constant server sends the adapter's answer: ${Object.keys(answer.headers).join(', ')} and ${Buffer.byteLength(answer.body)} bytes of body`);
    for (const us of spins) spinning.push({ us, server: await startServer({ kind: 'constant', products: 0, sessions: 0, answer, spinUs: us }), runs: [] });
    // Every side loaded once a round, in an order rotating every round: a change of the machine's load weighs on all alike.
    const sides: (() => Promise<void>)[] = [
      async () => { helloRuns.push(await load(hello, helloScenario, seconds, connections)); },
      async () => { constantRuns.push(await load(constantServer, popular, seconds, connections)); },
    ];
    for (const sp of spinning) sides.push(async () => { sp.runs.push(await load(sp.server, popular, seconds, connections)); });
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
      const c = constantRuns[round]!;
      console.log(`round ${round + 1} (load ${loadavg()[0]!.toFixed(1)}): hello ${Math.round(h.requestsPerSecond)} req/s, ${h.cpuUsPerRequest.toFixed(1)} µs/req (autocannon ${h.clientCpuUsPerRequest.toFixed(1)}; ${waits(h)}); `
        + `constant answer ${Math.round(c.requestsPerSecond)} req/s = ${pct(c.requestsPerSecond / h.requestsPerSecond)} of hello, ${c.cpuUsPerRequest.toFixed(1)} µs/req (autocannon ${c.clientCpuUsPerRequest.toFixed(1)}; ${waits(c)})`);
      for (const sp of spinning) {
        const r = sp.runs[round]!;
        console.log(`  constant + ${sp.us} µs busy: ${Math.round(r.requestsPerSecond)} req/s = ${pct(r.requestsPerSecond / h.requestsPerSecond)} of hello, ${r.cpuUsPerRequest.toFixed(1)} µs/req (main ${byThread(r).main.toFixed(1)}; autocannon ${r.clientCpuUsPerRequest.toFixed(1)}; ${waits(r)})`);
      }
      for (const t of trees) {
        const a = t.adapter[round]!;
        const b = t.bare[round]!;
        console.log(`  ${t.label}: adapter ${Math.round(a.requestsPerSecond)}, bare engine ${Math.round(b.requestsPerSecond)} req/s; `
          + `adapter/hello ${pct(a.requestsPerSecond / h.requestsPerSecond)}, adapter/bare ${pct(a.requestsPerSecond / b.requestsPerSecond)}; `
          + `adapter/constant ${pct(a.requestsPerSecond / c.requestsPerSecond)}; `
          + `CPU µs/req adapter ${a.cpuUsPerRequest.toFixed(1)} (${threads(a)}; autocannon ${a.clientCpuUsPerRequest.toFixed(1)}; ${waits(a)}), bare ${b.cpuUsPerRequest.toFixed(1)}; engine µs/call ${a.engineUsPerRequest.toFixed(1)}; non-2xx ${a.non2xx + b.non2xx}`);
      }
    }
  } finally {
    for (const t of trees) await t.server.stop();
    await constant?.stop();
    for (const sp of spinning) await sp.server.stop();
    await hello.stop();
  }
  const rate = (x: LoadResult) => x.requestsPerSecond;
  console.log(`\nmedian of ${rounds} rounds (${seconds} s each, ${connections} connections, ${products.toLocaleString('en-US')} products; load ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end):`);
  const client = (x: LoadResult) => x.clientCpuUsPerRequest;
  const w = (runs: LoadResult[]) => `${median(runs.map((r) => r.serverWaitsPerRequest)).toFixed(2)} | ${median(runs.map((r) => r.clientWaitsPerRequest)).toFixed(2)}`;
  console.log('| server | req/s | of hello | server CPU µs/req | autocannon CPU µs/req | server main thread waits/req | autocannon waits/req |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  console.log(`| hello world | ${Math.round(median(helloRuns.map(rate)))} | 100% | ${median(helloRuns.map((r) => r.cpuUsPerRequest)).toFixed(1)} | ${median(helloRuns.map(client)).toFixed(1)} | ${w(helloRuns)} |`);
  console.log(`| constant adapter answer | ${Math.round(median(constantRuns.map(rate)))} | ${pct(median(constantRuns.map((r, i) => rate(r) / rate(helloRuns[i]!))))} `
    + `| ${median(constantRuns.map((r) => r.cpuUsPerRequest)).toFixed(1)} | ${median(constantRuns.map(client)).toFixed(1)} | ${w(constantRuns)} |`);
  for (const sp of spinning) {
    console.log(`| constant answer + ${sp.us} µs busy | ${Math.round(median(sp.runs.map(rate)))} | ${pct(median(sp.runs.map((r, i) => rate(r) / rate(helloRuns[i]!))))} `
      + `| ${median(sp.runs.map((r) => r.cpuUsPerRequest)).toFixed(1)} (main ${median(sp.runs.map((r) => byThread(r).main)).toFixed(1)}) | ${median(sp.runs.map(client)).toFixed(1)} | ${w(sp.runs)} |`);
  }
  for (const t of trees) {
    console.log(`| ${t.label} adapter | ${Math.round(median(t.adapter.map(rate)))} | ${pct(median(t.adapter.map((r, i) => rate(r) / rate(helloRuns[i]!))))} `
      + `| ${median(t.adapter.map((r) => r.cpuUsPerRequest)).toFixed(1)} | ${median(t.adapter.map(client)).toFixed(1)} | ${w(t.adapter)} |`);
    console.log(`| ${t.label} bare engine server | ${Math.round(median(t.bare.map(rate)))} | ${pct(median(t.bare.map((r, i) => rate(r) / rate(helloRuns[i]!))))} `
      + `| ${median(t.bare.map((r) => r.cpuUsPerRequest)).toFixed(1)} | ${median(t.bare.map(client)).toFixed(1)} | ${w(t.bare)} |`);
  }
  console.log('');
  console.log('| tree | adapter / hello | adapter / constant answer | adapter / bare engine | adapter CPU µs/req by thread (main, busiest other thread, the rest) | engine µs/call |');
  console.log('|---|---:|---:|---:|---|---:|');
  for (const t of trees) {
    const split = t.adapter.map(byThread);
    console.log(`| ${t.label} | ${pct(median(t.adapter.map((r, i) => rate(r) / rate(helloRuns[i]!))))} | ${pct(median(t.adapter.map((r, i) => rate(r) / rate(constantRuns[i]!))))} `
      + `| ${pct(median(t.adapter.map((r, i) => rate(r) / rate(t.bare[i]!))))} `
      + `| main ${median(split.map((x) => x.main)).toFixed(1)}, busiest other ${median(split.map((x) => x.busiest)).toFixed(1)}, rest ${median(split.map((x) => x.rest)).toFixed(1)} `
      + `| ${median(t.adapter.map((r) => r.engineUsPerRequest)).toFixed(1)} |`);
  }
  if (profileDir) printProfile(profileDir);
}

/**
 * The adapter's answer to one request, as the constant server will send it: the status, the headers
 * node:http does not add by itself (Date, Connection and Keep-Alive it writes for any server) and the body.
 */
function captureAnswer(url: string): Promise<ConstantAnswer> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => {
        if (res.statusCode !== 200) { reject(new Error(`the adapter answered ${res.statusCode}: ${body}`)); return; }
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (name === 'date' || name === 'connection' || name === 'keep-alive' || typeof value !== 'string') continue;
          headers[name] = value;
        }
        resolve({ status: 200, headers, body });
      });
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** A load's CPU per request: the main thread, the busiest other thread (the store's worker under load) and the rest. */
function byThread(r: LoadResult): { main: number; busiest: number; rest: number } {
  const others = Object.entries(r.threadUsPerRequest).filter(([name]) => name !== 'main').map(([, us]) => us).sort((a, b) => b - a);
  return { main: r.threadUsPerRequest.main ?? NaN, busiest: others[0] ?? 0, rest: others.slice(1).reduce((a, b) => a + b, 0) };
}

/** The main threads' waits for work per request: the server's, then autocannon's. */
function waits(r: LoadResult): string {
  return `waits/req server ${r.serverWaitsPerRequest.toFixed(2)}, autocannon ${r.clientWaitsPerRequest.toFixed(2)}`;
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
