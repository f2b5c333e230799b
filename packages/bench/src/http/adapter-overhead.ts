/**
 * Where the time of an HTTP request goes, in ONE process (so all figures share the same CPU and
 * the same moment of a noisy machine):
 *  (a) `engine.search(body)` called directly;
 *  (b) the same bodies through the full listener (`createServer`, real sockets, keep-alive client);
 *  (c) simple requests: `GET /healthz` and `GET …/PopularItems?count=3`;
 *  and a bare node:http hello world served the same way, as the floor of socket + parser cost.
 * The adapter's share is `http ms − hello ms − engine ms` (the client runs in the same thread,
 * so its cost is in the hello figure too; but reading a large search answer is client work that the
 * hello figure does not hold, so this share is an upper bound). The serialiser alone is timed as well. Run: `node --import tsx packages/bench/src/http/adapter-overhead.ts [products] [seconds]`.
 * @module
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadDataset } from '../datasets.js';
import { createServer } from '@aisle/http-adapter';
import { serialize } from '@aisle/http-adapter/internal';
import { BENCH_WEBSITE, startAisle } from '../peers/aisle.js';
import { buildWorkload } from '../workloads/index.js';

interface Req { method: 'GET' | 'POST'; path: string; body?: string }

const products = Number(process.argv[2] ?? 100_000);
const seconds = Number(process.argv[3] ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 8);

/** Keep-alive client: `CONNECTIONS` loops, each sending its next request when the previous answer ended. */
async function drive(base: string, requests: Req[], durationS: number): Promise<{ rps: number; ms: number; non2xx: number }> {
  const url = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${BENCH_WEBSITE.tokens[0]}` };
  const end = performance.now() + durationS * 1000;
  let done = 0;
  let non2xx = 0;
  let next = 0;
  const one = (r: Req) => new Promise<void>((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method: r.method, path: r.path, agent, headers }, (res) => {
      if (res.statusCode! >= 300) non2xx++;
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end(r.body);
  });
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (performance.now() < end) {
      await one(requests[next++ % requests.length]!);
      done++;
    }
  }));
  const elapsed = performance.now() - t0;
  agent.destroy();
  return { rps: (done / elapsed) * 1000, ms: elapsed / done, non2xx };
}

async function main(): Promise<void> {
  const sample = await loadDataset({ kind: 'generated', count: products, seed: 1 });
  const engine = await startAisle(sample, undefined);
  const workload = buildWorkload(sample.slice(0, 20_000), 50);
  const bodies = [...workload.text_facets, ...workload.browse];

  // (a) the engine alone, one request at a time (the engine's own time per search).
  for (const b of bodies) await engine.search(b);
  let n = 0;
  const tEnd = performance.now() + seconds * 1000;
  const ta = performance.now();
  while (performance.now() < tEnd) { await engine.search(bodies[n % bodies.length]!); n++; }
  const engineMs = (performance.now() - ta) / n;
  // (a') the response serialiser alone on the same answers: the part of "adapter" time any JSON server pays.
  const answers = await Promise.all(bodies.map((b) => engine.search(b)));
  let bytes = 0;
  for (const r of answers) bytes += Buffer.byteLength(serialize.SearchResponse(r));
  let m = 0;
  const sEnd = performance.now() + 1000;
  const ts = performance.now();
  while (performance.now() < sEnd) { serialize.SearchResponse(answers[m % answers.length]!); m++; }
  const serializeMs = (performance.now() - ts) / m;

  const hello = http.createServer((_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('hello world'); });
  await new Promise<void>((r) => hello.listen(0, '127.0.0.1', r));
  const helloUrl = `http://127.0.0.1:${(hello.address() as AddressInfo).port}`;
  const server = await createServer({ engine, port: 0, host: '127.0.0.1', logger: false, closeEngine: false });

  const scenarios: Array<[string, string, Req[]]> = [
    ['bare node:http hello world', helloUrl, [{ method: 'GET', path: '/' }]],
    ['GET /healthz', server.url, [{ method: 'GET', path: '/healthz' }]],
    ['GET /1.0/ClientRecom/{id}/PopularItems?count=3', server.url, [{ method: 'GET', path: `/1.0/ClientRecom/${BENCH_WEBSITE.websiteId}/PopularItems?count=3` }]],
    ['POST /v1.4/search (same bodies as engine.search)', server.url, bodies.map((b) => ({ method: 'POST', path: '/v1.4/search', body: JSON.stringify(b) }))],
  ];
  const results: Array<{ name: string; rps: number; ms: number; non2xx: number }> = [];
  for (const [name, base, reqs] of scenarios) {
    await drive(base, reqs, 0.5); // warm-up
    results.push({ name, ...(await drive(base, reqs, seconds)) });
  }
  await server.close();
  await new Promise<void>((r) => hello.close(() => r()));
  await engine.close();

  // Serial per-request cost = 1 / rps (one thread does client + server + engine).
  const helloMs = 1000 / results[0]!.rps;
  console.log(`products ${products}, ${seconds} s per scenario, ${CONNECTIONS} keep-alive connections, one process`);
  console.log(`(a) engine.search direct: ${engineMs.toFixed(3)} ms/search (${Math.round(1000 / engineMs)} /s)`);
  console.log(`(a') serialising the answer: ${serializeMs.toFixed(3)} ms (average body ${Math.round(bytes / answers.length)} bytes, which the in-process client also has to read)`);
  for (const r of results) {
    const cpuMs = 1000 / r.rps;
    console.log(`${r.name}: ${Math.round(r.rps)} req/s, ${cpuMs.toFixed(3)} ms per request of the thread, above hello ${(cpuMs - helloMs).toFixed(3)} ms, non-2xx ${r.non2xx}`);
  }
  const s = results[3]!;
  const adapterMs = 1000 / s.rps - helloMs - engineMs;
  console.log(`search: adapter ms = ${adapterMs.toFixed(3)} (http ${(1000 / s.rps).toFixed(3)} − hello ${helloMs.toFixed(3)} − engine ${engineMs.toFixed(3)}); overhead ratio ${(100 * adapterMs / engineMs).toFixed(0)}% of the engine's time`);
  console.log(`simple: /healthz ${Math.round(results[1]!.rps)} req/s = ${(100 * results[1]!.rps / results[0]!.rps).toFixed(0)}% of hello; PopularItems ${Math.round(results[2]!.rps)} req/s = ${(100 * results[2]!.rps / results[0]!.rps).toFixed(0)}% of hello`);
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
