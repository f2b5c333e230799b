/**
 * Replicas sharing one catalog through PostgreSQL: how long from the acknowledgement of a catalog
 * change on one replica until another replica serves it, how many changes per second one replica
 * takes, how long a new replica on an empty data directory takes to be ready (stored snapshot + log),
 * and the memory of a replica.
 *
 * Replicas A, B (and later C) are separate processes (`replica-child.ts`: `createServer` around an
 * engine on the PostgreSQL store, its own empty data directory); this process drives them over HTTP.
 * A generated catalog of N products (default 100 000) is loaded through A. Then, one change at a
 * time: PATCH through A; once A acknowledges (200), B is polled (GET of the product, back to back on a
 * keep-alive connection, ~0.3 ms a probe) until it serves the change. Price patches take the
 * value-patch path; title patches rebuild the catalog's indexes on each replica (linear in N).
 *
 *   node packages/bench/dist/replicas/replica-convergence.js [products] [--changes=200] [--json]
 *
 * PostgreSQL: AISLE_TEST_PG_URL or postgres@127.0.0.1:5432/test, in a schema of its own, dropped at the end.
 * Figures are recorded in docs/benchmarks.md ("Replicas on PostgreSQL").
 * @module
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCatalog } from '@aisle/engine/demo';
import pg from 'pg';
import { BENCH_WEBSITE } from '../peers/aisle.js';

/** The test server, as the engine's PostgreSQL tests use it. */
const TEST_PG_URL = process.env.AISLE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function queryTestDb<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

const args = process.argv.slice(2);
const count = Number(args.find((a) => /^\d+$/.test(a)) ?? 100_000);
const changes = Number(args.find((a) => a.startsWith('--changes='))?.slice('--changes='.length) ?? 200);
const asJson = args.includes('--json');
const log = (line: string) => { if (!asJson) console.log(line); };
const ADMIN = 'bench-admin';
const schema = `catalog_bench_${process.pid}_${Date.now().toString(36)}`;
const tmp = mkdtempSync(join(tmpdir(), 'aisle-replica-bench-'));

interface Replica { child: ChildProcess; url: string; startMs: number; wallMs: number }

function startReplica(name: string, snapshotIntervalMs: number): Promise<Replica> {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const script = fileURLToPath(new URL(`./replica-child${ext}`, import.meta.url));
  const t0 = performance.now();
  const child = fork(script, [], { execArgv: [...process.execArgv, '--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise<Replica>((resolve, reject) => {
    child.once('message', (m: { type: string; url?: string; startMs?: number; error?: string }) => {
      if (m.type === 'ready') resolve({ child, url: m.url!, startMs: m.startMs!, wallMs: performance.now() - t0 });
      else reject(new Error(m.error));
    });
    child.once('exit', (code) => reject(new Error(`replica ${name} exited (${code})`)));
    child.send({
      cmd: 'start', adminToken: ADMIN,
      engineOptions: {
        dataDir: join(tmp, name), workers: 0, websites: [BENCH_WEBSITE], adminTokens: [ADMIN],
        store: { type: 'postgres', url: TEST_PG_URL, schema, pollIntervalMs: 1000, catalogSnapshotIntervalMs: snapshotIntervalMs },
      },
    });
  });
}

function ask<T>(r: Replica, cmd: string, reply: string): Promise<T> {
  return new Promise<T>((resolve) => {
    const on = (m: { type: string }) => {
      if (m.type !== reply) return;
      r.child.off('message', on);
      resolve(m as T);
    };
    r.child.on('message', on);
    r.child.send({ cmd });
  });
}

const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
const productUrl = (r: Replica, refId: string) => `${r.url}/admin/v1/websites/${BENCH_WEBSITE.websiteId}/products/${encodeURIComponent(refId)}`;

async function send(r: Replica, method: string, body: unknown, query = ''): Promise<void> {
  const res = await fetch(`${r.url}/admin/v1/websites/${BENCH_WEBSITE.websiteId}/products${query}`, { method, headers, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${method} answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

async function field(r: Replica, refId: string, name: string): Promise<unknown> {
  const res = await fetch(productUrl(r, refId), { headers });
  if (res.status !== 200) { await res.arrayBuffer(); return undefined; }
  return ((await res.json()) as Record<string, unknown>)[name];
}

async function until(probe: () => Promise<boolean>, deadlineMs: number, what: string): Promise<void> {
  const end = performance.now() + deadlineMs;
  while (!(await probe())) {
    if (performance.now() > end) throw new Error(`${what}: not within ${deadlineMs} ms`);
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
function stats(samples: number[]): { median: number; p99: number; max: number; n: number } {
  const s = [...samples].sort((x, y) => x - y);
  return { median: quantile(s, 0.5), p99: quantile(s, 0.99), max: s.at(-1)!, n: s.length };
}
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

/** Acknowledgement on A → served by B, per change. */
async function convergence(a: Replica, b: Replica, refIds: string[], n: number, change: (i: number) => Record<string, unknown>, name: string): Promise<{ ackMs: ReturnType<typeof stats>; visibleMs: ReturnType<typeof stats> }> {
  const ack: number[] = [];
  const visible: number[] = [];
  for (let i = 0; i < n; i++) {
    const refId = refIds[(i * 7919) % refIds.length]!;
    const patch = { refId, ...change(i) };
    const [key, value] = Object.entries(patch).find(([k]) => k !== 'refId')!;
    const t0 = performance.now();
    await send(a, 'PATCH', [patch]);
    const t1 = performance.now();
    await until(async () => (await field(b, refId, key)) === value, 30_000, `${name} ${i}`);
    visible.push(performance.now() - t1);
    ack.push(t1 - t0);
  }
  return { ackMs: stats(ack), visibleMs: stats(visible) };
}

const replicas: Replica[] = [];
try {
  log(`replicas on PostgreSQL (schema ${schema}), ${count.toLocaleString('en')} generated products`);
  const a = await startReplica('a', 5_000);
  const b = await startReplica('b', 5_000);
  replicas.push(a, b);
  const products = generateCatalog({ count, seed: 1 });
  const refIds = products.map((p) => p.refId);
  const last = refIds.at(-1)!;
  let t = performance.now();
  await send(a, 'PUT', products, '?mode=replace');
  const loadAckMs = performance.now() - t;
  await until(async () => (await field(b, last, 'refId')) === last, 300_000, 'load');
  const loadVisibleMs = performance.now() - t;
  log(`load through A: acknowledged in ${ms(loadAckMs)} ms, served by B ${ms(loadVisibleMs)} ms after the request`);

  const prices = await convergence(a, b, refIds, changes, (i) => ({ price: 1000 + i + 0.25 }), 'price');
  log(`price patch (value patch), ${prices.visibleMs.n} changes: ack median ${ms(prices.ackMs.median)} ms; ack → served by B median ${ms(prices.visibleMs.median)} / p99 ${ms(prices.visibleMs.p99)} / max ${ms(prices.visibleMs.max)} ms`);
  const titleChanges = Math.max(5, Math.round(changes / 20));
  const titles = await convergence(a, b, refIds, titleChanges, (i) => ({ title: `renamed product ${i}` }), 'title');
  log(`title patch (index rebuild), ${titles.visibleMs.n} changes: ack median ${ms(titles.ackMs.median)} ms; ack → served by B median ${ms(titles.visibleMs.median)} / p99 ${ms(titles.visibleMs.p99)} / max ${ms(titles.visibleMs.max)} ms`);

  // Throughput: 8 clients each sending one-product price patches through A for a few seconds; then
  // the time until B serves the last change of every client.
  const windowMs = 5_000;
  let sent = 0;
  const lastOf: { refId: string; price: number }[] = [];
  const stopAt = performance.now() + windowMs;
  t = performance.now();
  await Promise.all(Array.from({ length: 8 }, async (_, c) => {
    for (let i = 0; performance.now() < stopAt; i++) {
      const patch = { refId: refIds[(c * 100_003 + i * 31) % refIds.length]!, price: 5000 + c * 100_000 + i + 0.5 };
      await send(a, 'PATCH', [patch]);
      lastOf[c] = patch;
      sent++;
    }
  }));
  const throughputWindow = performance.now() - t;
  t = performance.now();
  for (const patch of lastOf) await until(async () => (await field(b, patch.refId, 'price')) === patch.price, 60_000, 'drain');
  const drainMs = performance.now() - t;
  const perSecond = sent / (throughputWindow / 1000);
  log(`throughput: ${sent} one-product patches through A in ${ms(throughputWindow)} ms = ${perSecond.toFixed(0)} changes/s (8 clients); B served the last ones ${ms(drainMs)} ms after the window`);

  // Bootstrap: wait for a stored snapshot covering the log, then start C on an empty data directory.
  const [{ seq: lastSeq }] = await queryTestDb<{ seq: string }>(`SELECT MAX(seq) AS seq FROM "${schema}".change_log`) as [{ seq: string }];
  await until(async () => {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const rows = await queryTestDb<{ seq: string; bytes: string }>(`SELECT seq, bytes FROM "${schema}".catalog_snapshots`);
    return rows.length > 0 && Number(rows[0]!.seq) >= Number(lastSeq);
  }, 120_000, 'snapshot');
  const [{ bytes }] = await queryTestDb<{ bytes: string }>(`SELECT bytes FROM "${schema}".catalog_snapshots`) as [{ bytes: string }];
  const c = await startReplica('c-empty', 60_000);
  replicas.push(c);
  const cLast = await field(c, last, 'refId');
  if (cLast !== last) throw new Error('C is ready without the catalog');
  log(`bootstrap of C on an empty data directory: ready ${ms(c.wallMs)} ms after its process started (${ms(c.startMs)} ms in createServer: snapshot of ${(Number(bytes) / 2 ** 20).toFixed(0)} MB read from PostgreSQL, decoded, log after it applied)`);

  // Bootstrap from the snapshot plus a log tail of 500 one-product patches.
  for (let i = 0; i < 500; i += 50) await send(a, 'PATCH', Array.from({ length: 50 }, (_, k) => ({ refId: refIds[(i + k) * 13 % refIds.length]!, price: 7000 + i + k + 0.5 })));
  const d = await startReplica('d-empty', 60_000);
  replicas.push(d);
  log(`bootstrap of D (snapshot + 10 logged changes of 50 products): ready ${ms(d.wallMs)} ms after its process started (${ms(d.startMs)} ms in createServer)`);

  const memory = await ask<{ rssBytes: number; retainedBytes: number }>(b, 'memory', 'memory');
  log(`memory of replica B: RSS ${(memory.rssBytes / 2 ** 20).toFixed(0)} MB, heap + array buffers ${(memory.retainedBytes / 2 ** 20).toFixed(0)} MB`);
  if (asJson) {
    console.log(JSON.stringify({
      products: count, loadAckMs, loadVisibleMs, prices, titles, throughput: { sent, windowMs: throughputWindow, perSecond, drainMs },
      bootstrap: { wallMs: c.wallMs, createServerMs: c.startMs, snapshotBytes: Number(bytes) },
      bootstrapWithLog: { wallMs: d.wallMs, createServerMs: d.startMs }, memory,
    }));
  }
} finally {
  await Promise.all(replicas.map((r) => ask(r, 'stop', 'stopped').catch(() => undefined)));
  await queryTestDb(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  rmSync(tmp, { recursive: true, force: true });
}
