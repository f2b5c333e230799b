/**
 * Ingestion benchmark of the event service: purchase (or click) events acknowledged per second (durable:
 * each acknowledgement waits for its group-committed transaction) on the memory, embedded SQLite and
 * PostgreSQL stores, with many requests in flight.
 *
 *   node --import tsx packages/bench/src/events-ingest.ts [--events 50000] [--kind purchases|clicks|purchases,clicks] [--pg postgres://postgres@127.0.0.1:5432/test] [--no-pg]
 *
 * `--kind clicks` sends click events on search result lists: each names its list's `queryId` and its
 * position in it, with a unique `clickId` (the idempotency look-up of every click); the lists are
 * answered from memory, as the engine's recently answered lists are (clicks/result-pages.ts). Both kinds
 * (`--kind purchases,clicks`) run one after the other on each store: their ratio within one run is the
 * figure to compare on a shared machine.
 *
 * Prints one line per (store, request shape; "in-flight" is the client count, or the request rate of
 * the paced scenario): events/s, requests/s, ack latency median and p99, and the
 * delay of the bench's own event loop during the measured run (`monitorEventLoopDelay`, 1 ms resolution:
 * p50/p99/max): how long any other work of the process (a search, a recommendation) would have waited.
 * PostgreSQL runs in a fresh schema that is dropped afterwards; it is skipped when unreachable.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ResultPageRecord } from '@aisle/engine';
import { EventService, type ResultListLookup } from '@aisle/engine/internal';
import { machineInfo } from './machine.js';
import { ms, summarize } from './stats.js';

/** The part of `pg` (the engine's dependency) used to probe the server and drop the bench schema. */
interface PgModule {
  Client: new (config: { connectionString: string; connectionTimeoutMillis?: number }) => {
    connect(): Promise<void>;
    query(sql: string): Promise<unknown>;
    end(): Promise<void>;
  };
}

/**
 * Closed loop (`concurrency` clients, each sending its next request when the last was acknowledged:
 * throughput) or paced (`ratePerSecond` requests sent on schedule whatever the acks: the event-loop
 * delay of a process that is not saturated, i.e. what a search waits for while purchases are stored).
 */
type Scenario = { eventsPerRequest: number } & ({ concurrency: number } | { ratePerSecond: number });

const SCENARIOS: Scenario[] = [
  { eventsPerRequest: 1, concurrency: 256 },
  { eventsPerRequest: 10, concurrency: 64 },
  { eventsPerRequest: 1, ratePerSecond: 2000 },
];

/** Paced scenarios run this many seconds (at most the requested event count). */
const PACED_SECONDS = 5;

/** Events a scenario sends when the run asks for `total`. */
function scenarioEvents(s: Scenario, total: number): number {
  return 'ratePerSecond' in s ? Math.min(total, s.ratePerSecond * s.eventsPerRequest * PACED_SECONDS) : total;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const CUSTOMERS = Array.from({ length: 64 }, (_, i) => `3f2504e0-4f89-11d3-9a0c-${i.toString(16).padStart(12, '0')}`);

/** Pre-built request bodies (2 products per event, unique order ids per run). */
function bodies(run: string, totalEvents: number, eventsPerRequest: number): unknown[] {
  const out: unknown[] = [];
  for (let n = 0; n < totalEvents; n += eventsPerRequest) {
    const events = [];
    for (let j = 0; j < eventsPerRequest && n + j < totalEvents; j++) {
      events.push({
        currentUrl: 'https://shop.example/checkout/thanks', eventTime: '2024-05-01T12:00:00Z', orderId: `${run}-${n + j}`, currencyCode: 'EUR',
        products: [
          { refId: `sku-${(n + j) % 997}`, quantity: 1, price: 19.99, recommenderId: '11111111-1111-4111-8111-111111111111' },
          { refId: `sku-${(n + j * 7) % 991}`, quantity: 2, price: 5.5 },
        ],
      });
    }
    out.push({ customerId: CUSTOMERS[n % CUSTOMERS.length], sessionId: '6ba7b810-9dad-11d1-80b4-00c04fd430c8', events });
  }
  return out;
}

/** The search result lists the click bodies name, by queryId (100 lists of 20 products). */
const CLICKED_LISTS = new Map<string, ResultPageRecord>(Array.from({ length: 100 }, (_, i) => {
  const queryId = `bench-list-${i}`;
  const refIds = Array.from({ length: 20 }, (_, k) => `sku-${(i * 20 + k) % 997}`);
  return [queryId, {
    websiteId: 'bench', queryId, kind: 'search', source: `query ${i % 37}`, variant: null, customerId: null, sessionId: null,
    firstPosition: 1, refIds, createdAt: Date.now(),
  }] as const;
}));
const findLists: ResultListLookup = async (_websiteId, queryIds) => new Map(queryIds.flatMap((id) => {
  const list = CLICKED_LISTS.get(id);
  return list === undefined ? [] : [[id, list] as const];
}));

/** Pre-built click bodies: each click on a product of a remembered list at its position, with a clickId of its own. */
function clickBodies(_run: string, totalEvents: number, eventsPerRequest: number): unknown[] {
  const lists = [...CLICKED_LISTS.values()];
  const out: unknown[] = [];
  for (let n = 0; n < totalEvents; n += eventsPerRequest) {
    const events = [];
    for (let j = 0; j < eventsPerRequest && n + j < totalEvents; j++) {
      const list = lists[(n + j) % lists.length]!;
      const position = 1 + ((n + j) * 7) % list.refIds.length;
      events.push({ eventTime: '2024-05-01T12:00:00Z', refId: list.refIds[position - 1], type: 'click', queryId: list.queryId, position, clickId: randomUUID() });
    }
    out.push({ customerId: CUSTOMERS[n % CUSTOMERS.length], sessionId: '6ba7b810-9dad-11d1-80b4-00c04fd430c8', events });
  }
  return out;
}

type Kind = 'purchases' | 'clicks';

/** One request of `kind` to the service. */
function send(service: EventService, kind: Kind, body: unknown): Promise<unknown> {
  return kind === 'clicks' ? service.recordClicks('bench', body, findLists) : service.recordPurchases('bench', body);
}

async function runScenario(service: EventService, kind: Kind, run: string, totalEvents: number, s: Scenario) {
  const requests = (kind === 'clicks' ? clickBodies : bodies)(run, totalEvents, s.eventsPerRequest);
  const latencies: number[] = new Array(requests.length);
  let next = 0;
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const started = performance.now();
  if ('concurrency' in s) {
    await Promise.all(Array.from({ length: s.concurrency }, async () => {
      for (let i = next++; i < requests.length; i = next++) {
        const t0 = performance.now();
        await send(service, kind, requests[i]);
        latencies[i] = performance.now() - t0;
      }
    }));
  } else {
    const acks: Promise<void>[] = [];
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const due = Math.min(requests.length, Math.floor(((performance.now() - started) / 1000) * s.ratePerSecond));
        for (; next < due; next++) {
          const i = next;
          const t0 = performance.now();
          acks.push(send(service, kind, requests[i]).then(() => { latencies[i] = performance.now() - t0; }));
        }
        if (next >= requests.length) {
          clearInterval(timer);
          resolve();
        }
      }, 2);
    });
    await Promise.all(acks);
  }
  const seconds = (performance.now() - started) / 1000;
  loop.disable();
  // The histogram is in ns and includes the 1 ms sampling resolution; report ms.
  const loopDelay = { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 };
  return { eventsPerSecond: totalEvents / seconds, requestsPerSecond: requests.length / seconds, latency: summarize(latencies), loopDelay };
}

/** The clicks the bench website holds (read back through the store, a page at a time). */
async function storedClicks(service: EventService): Promise<number> {
  let n = 0;
  for (let after = 0; ;) {
    const page = await service.store.readClicks('bench', after, 10_000);
    n += page.length;
    if (page.length < 10_000) return n;
    after = page.at(-1)!.seq;
  }
}

async function main(): Promise<void> {
  const totalEvents = Number(arg('events') ?? 50_000);
  const kinds = (arg('kind') ?? 'purchases').split(',') as Kind[];
  for (const kind of kinds) if (kind !== 'purchases' && kind !== 'clicks') throw new Error(`--kind is purchases and/or clicks, not ${String(kind)}`);
  const pgUrl = arg('pg') ?? 'postgres://postgres@127.0.0.1:5432/test';
  const website = { websiteId: 'bench', client: 'bench', tokens: [], hmacSecret: 'bench-secret' };
  const sink = { onPurchase() {}, onView() {} };
  const m = machineInfo();
  console.log(`events-ingest: ${totalEvents} events (${kinds.join(', ')}) per scenario; ${m.cpu}, ${m.cores} cores, load ${m.loadAverage}, node ${m.node}`);
  console.log('store/kind           events/req  in-flight  events/s   requests/s  ack median ms  ack p99 ms  loop delay p50 / p99 / max ms');

  const dataDir = mkdtempSync(path.join(tmpdir(), 'aisle-bench-events-'));
  // pg is the engine's dependency, not the bench's: resolve it from the engine's package.
  const require = createRequire(fileURLToPath(import.meta.resolve('@aisle/engine')));
  const pg = require('pg') as PgModule;
  const schema = `aisle_bench_${process.pid}_${Date.now()}`;
  const targets: { name: string; open: () => Promise<EventService>; events: number }[] = [
    { name: 'memory', events: totalEvents, open: () => EventService.open({ store: { type: 'memory' }, websites: [website], sink }) },
    { name: 'embedded', events: totalEvents, open: () => EventService.open({ store: { type: 'embedded' }, dataDir, websites: [website], sink }) },
  ];
  let pgReachable = false;
  if (!process.argv.includes('--no-pg')) {
    const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      pgReachable = true;
    } catch (err) {
      console.log(`postgres: skipped (${(err as Error).message})`);
    } finally {
      await client.end().catch(() => undefined);
    }
    if (pgReachable) {
      targets.push({ name: 'postgres', events: totalEvents, open: () => EventService.open({ store: { type: 'postgres', url: pgUrl, schema }, websites: [website], sink }) });
    }
  }

  try {
    for (const target of targets) {
      const service = await target.open();
      try {
        for (const kind of kinds) for (const [k, s] of SCENARIOS.entries()) {
          // A short warm-up, then the measured run.
          await runScenario(service, kind, `${target.name}-warm-${k}`, Math.min(2000, target.events), s);
          const r = await runScenario(service, kind, `${target.name}-run-${k}`, scenarioEvents(s, target.events), s);
          const shape = 'concurrency' in s ? String(s.concurrency) : `${s.ratePerSecond}/s`;
          console.log(`${`${target.name}/${kind}`.padEnd(20)} ${String(s.eventsPerRequest).padStart(10)} ${shape.padStart(10)} ${Math.round(r.eventsPerSecond).toString().padStart(9)} ${Math.round(r.requestsPerSecond).toString().padStart(12)} ${ms(r.latency.median).padStart(14)} ${ms(r.latency.p99).padStart(11)}  ${ms(r.loopDelay.p50)} / ${ms(r.loopDelay.p99)} / ${ms(r.loopDelay.max)}`);
        }
        const expected = SCENARIOS.reduce((sum, s) => sum + scenarioEvents(s, target.events) + Math.min(2000, target.events), 0);
        for (const kind of kinds) {
          const stored = kind === 'clicks' ? await storedClicks(service) : (await service.counts('bench')).orders;
          if (stored !== expected) console.log(`  WARNING: ${target.name} holds ${stored} ${kind}, expected ${expected}`);
        }
      } finally {
        await service.close();
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    if (pgReachable) {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  }
}

await main();
