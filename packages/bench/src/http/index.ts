/**
 * HTTP load: autocannon (in this process) against the server (in its own process) for simple requests
 * (`/healthz`, PopularItems?count=3), search, a recommendation method, purchases and views, beside a bare node:http hello-world in the same run —
 * the ceiling of what this machine's Node does per second.
 * @module
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mainThreadWaits, threadCpuOf, type ThreadCpu } from './thread-cpu.js';
import autocannon from 'autocannon';
import { loadDataset } from '../datasets.js';
import { mb, ms } from '../stats.js';
import type { ServerChildInput, ServerChildMessage, ServerUsage } from './server-child.js';
import { scenarios, type Scenario } from './scenarios.js';

export interface RunningServer {
  url: string;
  /** The server process's id (its threads' CPU is read from /proc: {@link threadCpuOf}). */
  pid: number;
  /** The bare node:http server making the same recommendation call on the same engine (aisle only). */
  bareRecommendUrl?: string;
  setupMs: number;
  refIds: string[];
  /** The server process's CPU and engine time so far. */
  usage(): Promise<ServerUsage>;
  stop(): Promise<number>;
}

/**
 * Starts a server child (`server-child.ts`); `extraExecArgv` adds Node flags to it (e.g. `--cpu-prof`);
 * `script` runs another tree's built server child instead (an A/B run against a worktree).
 */
export function startServer(input: ServerChildInput, extraExecArgv: string[] = [], script?: string): Promise<RunningServer> {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const child = fork(script ?? fileURLToPath(new URL(`./server-child${ext}`, import.meta.url)), [], {
    execArgv: [...process.execArgv, '--max-old-space-size=8192', ...extraExecArgv], stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error('server did not start within 300 s')); }, 300_000);
    child.once('message', (m: ServerChildMessage) => {
      clearTimeout(timer);
      if (m.type !== 'ready') {
        child.kill('SIGKILL');
        reject(new Error(m.type === 'error' ? m.error : 'unexpected message'));
        return;
      }
      resolve({
        url: m.url, pid: child.pid!, ...(m.bareRecommendUrl && { bareRecommendUrl: m.bareRecommendUrl }), setupMs: m.setupMs, refIds: m.sample.refIds,
        usage: () => new Promise<ServerUsage>((res) => {
          child.once('message', (u: ServerChildMessage) => res(u.type === 'usage' ? u.usage : { cpuUs: NaN, engineUs: NaN, engineCalls: 0 }));
          child.send('usage');
        }),
        stop: () => new Promise<number>((res) => {
          const killer = setTimeout(() => { child.kill('SIGKILL'); res(NaN); }, 20_000);
          // Resolved when the child has exited: a `--cpu-prof` profile is written at exit, and read after stop().
          child.once('message', (s: ServerChildMessage) => child.once('exit', () => { clearTimeout(killer); res(s.type === 'stopped' ? s.rssBytes : NaN); }));
          child.send('stop');
        }),
      });
    });
    child.send(input);
  });
}

export interface LoadResult {
  scenario: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
  /** CPU of the server process per request answered (all its threads), µs. */
  cpuUsPerRequest: number;
  /** Time inside engine.search / engine.recommend per request, µs (NaN when the scenario calls neither). */
  engineUsPerRequest: number;
  /** CPU per request answered by each kind of thread of the server process (/proc; empty where /proc is absent), µs. */
  threadUsPerRequest: ThreadCpu;
  /**
   * CPU of this process (the load generator, autocannon, runs in it) per request answered, µs: on two
   * cores the generator's share is CPU the server does not get.
   */
  clientCpuUsPerRequest: number;
  /** Waits of the server's main thread for work ({@link mainThreadWaits}) per request answered. */
  serverWaitsPerRequest: number;
  /** The same for the load generator's thread (this process's main thread). */
  clientWaitsPerRequest: number;
}

export async function load(server: RunningServer, scenario: Scenario, durationS: number, connections: number, url = server.url): Promise<LoadResult> {
  const before = await server.usage();
  const threadsBefore = threadCpuOf(server.pid);
  const clientBefore = process.cpuUsage();
  const waitsBefore = { server: mainThreadWaits(server.pid), client: mainThreadWaits(process.pid) };
  const result = await autocannon({
    url, connections, duration: durationS, pipelining: 1,
    requests: scenario.requests as autocannon.Request[],
  });
  const client = process.cpuUsage(clientBefore);
  const waitsAfter = { server: mainThreadWaits(server.pid), client: mainThreadWaits(process.pid) };
  const after = await server.usage();
  const threadsAfter = threadCpuOf(server.pid);
  const calls = after.engineCalls - before.engineCalls;
  const threadUsPerRequest: ThreadCpu = {};
  for (const [name, us] of Object.entries(threadsAfter)) threadUsPerRequest[name] = (us - (threadsBefore[name] ?? 0)) / result.requests.total;
  return {
    threadUsPerRequest,
    clientCpuUsPerRequest: (client.user + client.system) / result.requests.total,
    serverWaitsPerRequest: (waitsAfter.server - waitsBefore.server) / result.requests.total,
    clientWaitsPerRequest: (waitsAfter.client - waitsBefore.client) / result.requests.total,
    cpuUsPerRequest: (after.cpuUs - before.cpuUs) / result.requests.total,
    engineUsPerRequest: calls > 0 ? (after.engineUs - before.engineUs) / calls : NaN,
    scenario: scenario.name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total,
  };
}

export async function runHttpSuite(options: { durationS: number; products: number; sessions?: number; connections?: number; log: (line: string) => void }): Promise<string> {
  const connections = options.connections ?? 10;
  const lines = ['## HTTP load (autocannon)', ''];
  const sessions = options.sessions ?? Math.min(20_000, Math.floor(options.products / 5));
  const sample = await loadDataset({ kind: 'generated', count: options.products, seed: 1 }, 20_000);
  // Both servers run side by side, and a hello-world run precedes every aisle scenario: each scenario is
  // compared with the ceiling measured just before it, so a change of the machine's load between
  // scenarios (other jobs on a shared machine) does not skew its ratio.
  const hello = await startServer({ kind: 'hello', products: 0, sessions: 0 });
  const helloScenario = scenarios(sample, [])[0]!;
  const helloRuns: LoadResult[] = [];
  const results: { r: LoadResult; hello: LoadResult }[] = [];
  const versusBare: { scenario: string; adapter: number; bare: number; adapterCpuUs: number; bareCpuUs: number }[] = [];
  let aisle: RunningServer | undefined;
  let rss = NaN;
  try {
    aisle = await startServer({ kind: 'aisle', products: options.products, sessions });
    for (const scenario of scenarios(sample, aisle.refIds).filter((s) => s.server === 'aisle')) {
      const h = await load(hello, helloScenario, options.durationS, connections);
      helloRuns.push(h);
      const r = await load(aisle, scenario, options.durationS, connections);
      results.push({ r, hello: h });
      options.log(`  ${scenario.name}: ${Math.round(r.requestsPerSecond)} req/s (hello world just before: ${Math.round(h.requestsPerSecond)}), p99 ${r.p99} ms, non-2xx ${r.non2xx}`);
      if (scenario.againstBare && aisle.bareRecommendUrl) {
        // A-B-B-A after the run above (which warmed both the engine's caches and the connections): the
        // adapter, the bare server twice, the adapter again, so a steady drift of the machine's load
        // weighs on both sides alike.
        const runs: LoadResult[] = [];
        for (const url of [aisle.url, aisle.bareRecommendUrl, aisle.bareRecommendUrl, aisle.url]) runs.push(await load(aisle, scenario, options.durationS, connections, url));
        const mean = (a: LoadResult, b: LoadResult, of: (x: LoadResult) => number) => (of(a) + of(b)) / 2;
        const rate = (x: LoadResult) => x.requestsPerSecond;
        const cpu = (x: LoadResult) => x.cpuUsPerRequest;
        const pair = {
          scenario: scenario.name, adapter: mean(runs[0]!, runs[3]!, rate), bare: mean(runs[1]!, runs[2]!, rate),
          adapterCpuUs: mean(runs[0]!, runs[3]!, cpu), bareCpuUs: mean(runs[1]!, runs[2]!, cpu),
        };
        versusBare.push(pair);
        options.log(`    vs a bare node:http server making the same engine call: ${Math.round(pair.adapter)} / ${Math.round(pair.bare)} req/s = ${(100 * pair.adapter / pair.bare).toFixed(0)}%; `
          + `CPU ${pair.adapterCpuUs.toFixed(0)} / ${pair.bareCpuUs.toFixed(0)} µs per request`);
      }
    }
  } finally {
    if (aisle) rss = await aisle.stop();
    await hello.stop();
  }
  // The hello-world row shows its median run.
  const helloRow = [...helloRuns].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(helloRuns.length / 2)]!;
  lines.push(
    `The server runs in its own process (aisle: \`createServer\` from @aisle/http-adapter around an engine with ${options.products.toLocaleString('en-US')} generated products, `
      + `${sessions.toLocaleString('en-US')} replayed sessions of views and purchases, the embedded SQLite store in a temporary data directory, `
      + `${(aisle.setupMs / 1000).toFixed(1)} s to set up, ${mb(rss)} MB RSS at the end); autocannon runs in the parent with ${connections} connections for ${options.durationS} s per scenario. `
      + 'Search and recommendation requests cycle through 50–100 different bodies or products; purchases are new orders. '
      + 'The server logs every request (pino, through the adapter\'s buffered destination, into a file), as `aisle serve` does. '
      + 'A bare node:http hello world runs in a third process throughout; it is loaded for the same time right before every scenario, and '
      + '"of hello world" is the scenario\'s rate as a share of that run\'s (the hello-world row shows the median of those runs; the ratios stay comparable when the machine\'s load changes during the suite). '
      + 'The server process also measures itself: its CPU per request answered (user + system, all threads, from `process.cpuUsage`), '
      + 'and the time spent inside `engine.search` / `engine.recommend` per call. What is left, minus the hello world\'s CPU per request '
      + '(node:http\'s own floor: parsing, sockets, the event loop), is spent outside the engine: the adapter (routing, auth, body read and validation, '
      + 'serialisation, writing the answer, metrics) and the garbage collection V8 runs on its helper threads, which the engine\'s allocations cause '
      + 'but its timer does not see; so it is an upper bound of the adapter\'s cost (a CPU profile of the main thread splits it: docs/http-api.md, "Performance"). '
      + 'The last column relates it to the engine\'s time.',
    '',
    '| scenario | req/s | latency p50 ms | p99 ms | requests | non-2xx | errors | of hello world | server CPU µs / request | in the engine µs | outside the engine, above node:http µs | outside / engine |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  const us = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(0));
  const row = (r: LoadResult, ofHello: string, cells: [string, string, string, string]): string =>
    `| ${r.scenario} | ${Math.round(r.requestsPerSecond).toLocaleString('en-US')} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.total.toLocaleString('en-US')} | ${r.non2xx} | ${r.errors} | ${ofHello} | ${cells.join(' | ')} |`;
  lines.push(row(helloRow, '100%', [us(helloRow.cpuUsPerRequest), '–', '–', '–']));
  for (const { r, hello: h } of results) {
    // Above node:http's own floor: the hello-world run just before this scenario.
    const adapter = r.cpuUsPerRequest - h.cpuUsPerRequest - (Number.isNaN(r.engineUsPerRequest) ? 0 : r.engineUsPerRequest);
    const share = Number.isNaN(r.engineUsPerRequest) ? '–' : `${(100 * adapter / r.engineUsPerRequest).toFixed(0)}%`;
    lines.push(row(r, `${(100 * r.requestsPerSecond / h.requestsPerSecond).toFixed(0)}%`, [us(r.cpuUsPerRequest), us(r.engineUsPerRequest), us(adapter), share]));
  }
  lines.push(
    '',
    '**The adapter against a bare node:http server making the same engine call** (issue 11: a recommendation call through the adapter at '
      + 'no less than 60 % of the bare server\'s rate). The bare server runs in the aisle server\'s process, on the same engine: it reads the '
      + 'query with URLSearchParams, calls `engine.recommend` and writes `JSON.stringify` of the answer, without routing, auth, CORS, '
      + 'metrics or request logs; the adapter has request logs and metrics on. After the scenario\'s own run (which warms the engine\'s caches), '
      + 'each side is loaded twice in the order adapter, bare, bare, adapter (the rows are the means), so a steady change of the machine\'s load weighs on both alike. '
      + 'When the machine is busy, the rates are bounded by the CPU the load generator gets as much as by the servers: '
      + 'the server process\'s CPU per request answered (all threads) is the steadier measure, and its ratio (bare / adapter) is the rate the '
      + 'adapter would reach, as a share of the bare server\'s, with a CPU to itself.',
    '',
    '| scenario | adapter req/s | bare node:http req/s | adapter / bare (rate) | adapter CPU µs / request | bare CPU µs / request | bare / adapter (CPU) |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...versusBare.map((p) => `| ${p.scenario} | ${Math.round(p.adapter).toLocaleString('en-US')} | ${Math.round(p.bare).toLocaleString('en-US')} | ${(100 * p.adapter / p.bare).toFixed(0)}% `
      + `| ${p.adapterCpuUs.toFixed(0)} | ${p.bareCpuUs.toFixed(0)} | ${(100 * p.bareCpuUs / p.adapterCpuUs).toFixed(0)}% |`),
    '',
  );
  return lines.join('\n');
}
