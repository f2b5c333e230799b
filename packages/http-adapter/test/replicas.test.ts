/**
 * Two engine replicas as separate processes (test/fixtures/replica-server.ts through tsx), each serving
 * HTTP on its own port, both on one PostgreSQL schema (a random name per run, dropped afterwards), with
 * a short poll interval: the coupon ledger, order idempotency, model propagation between replicas, a
 * SIGKILL in the middle of a purchase stream, website settings changed through either replica, and a
 * click on one replica naming a result page the other answered, all through the documented HTTP API.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EngineOptions, WebsiteStats } from '@aisle/engine';
import { generateCatalog } from '@aisle/engine/demo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PG_URL, TestSchemas, requirePostgres } from '../../engine/src/store/pg-test-env.js';
import { ReplicaSet, eventually as eventuallyWithin, startChild, type Replica } from './child-server.js';
import { ADMIN_TOKEN, SITE_A, TOKEN_A, bearer, post } from './helpers.js';

const POLL_INTERVAL_MS = 100;
/** Documented delay: pollIntervalMs plus the read time, plus the popular-items cache refresh (1 s); with slack for a loaded machine. */
const PROPAGATION_DEADLINE_MS = 8_000;

const schemas = new TestSchemas();
const tmp = mkdtempSync(path.join(tmpdir(), 'aisle-replicas-'));
let schema: string;

const replicas = new ReplicaSet();

function engineOptions(name: string): EngineOptions {
  return {
    dataDir: path.join(tmp, name),
    store: { type: 'postgres', url: TEST_PG_URL, schema, pollIntervalMs: POLL_INTERVAL_MS },
    workers: 0,
    websites: [SITE_A],
    adminTokens: [ADMIN_TOKEN],
  };
}

function startReplica(name: string): Promise<Replica> {
  return replicas.start(name, () => startChild(engineOptions(name)));
}

const kill = (replica: Replica, signal: NodeJS.Signals): Promise<void> => replicas.kill(replica, signal);

const catalog = [
  ...generateCatalog({ count: 40, seed: 5 }),
  { refId: 'POP-X', title: 'Replica bestseller', brand: 'Acme', price: 10, availability: 5 },
  { refId: 'KILL-Y', title: 'Restart special', brand: 'Acme', price: 12, availability: 5 },
];
const refIds = catalog.map((p) => p.refId);

async function loadCatalog(r: Replica): Promise<void> {
  const res = await fetch(`${r.url}/admin/v1/websites/site-a/products`, {
    method: 'PUT', headers: { ...bearer(ADMIN_TOKEN), 'content-type': 'application/json' }, body: JSON.stringify(catalog),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(((await res.json()) as { catalogSize: number }).catalogSize).toBe(catalog.length);
}

async function stats(r: Replica): Promise<WebsiteStats> {
  const res = await fetch(`${r.url}/admin/v1/websites/site-a/stats`, { headers: bearer(ADMIN_TOKEN) });
  expect(res.status).toBe(200);
  return (await res.json()) as WebsiteStats;
}

async function popular(r: Replica, count = 5): Promise<string[]> {
  const res = await fetch(`${r.url}/1.0/ClientRecom/site-a/PopularItems?count=${count}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { payload: string[] }).payload;
}

function eventually(probe: () => Promise<boolean>, describe: string | (() => Promise<string> | string), deadlineMs = PROPAGATION_DEADLINE_MS): Promise<void> {
  return eventuallyWithin(probe, describe, deadlineMs);
}

const CUSTOMER = '7d1c0a9e-5b2f-4f4e-9a51-0c6f3c1e2a10';
const SESSION = '0b7f1e0c-3d2a-4c55-8e1f-2a9b6c4d8e21';
const eventTime = () => new Date().toISOString();

function purchase(orderId: string, lines: string[]): Record<string, unknown> {
  return {
    customerId: CUSTOMER, sessionId: SESSION,
    events: [{ currentUrl: 'https://shop.example/thanks', eventTime: eventTime(), orderId, products: lines.map((refId) => ({ refId, quantity: 1, price: 10 })) }],
  };
}

async function sendPurchase(r: Replica, body: Record<string, unknown>): Promise<{ status: number; transactionId?: string }> {
  const res = await post(`${r.url}/3.0/events/purchases`, body, bearer(TOKEN_A));
  const json = (await res.json()) as { transactionId?: string };
  return { status: res.status, transactionId: json.transactionId };
}

let r1: Replica;
let r2: Replica;

beforeAll(async () => {
  await requirePostgres();
  schema = schemas.next();
  // The first replica creates the schema and runs the migrations; the second then starts on it.
  r1 = await startReplica('r1');
  r2 = await startReplica('r2');
  // Catalogs are shared through PostgreSQL (catalog-replicas.test.ts): loaded through one replica,
  // the catalog reaches the other; (d) restarts r2 from PostgreSQL's snapshot and change log.
  await loadCatalog(r1);
  await eventually(async () => (await stats(r2)).products === catalog.length, async () => `r2 has ${(await stats(r2)).products} products`, 20_000);
}, 120_000);

afterAll(() => replicas.tearDown(schemas, tmp), 60_000);

describe('two replicas (processes) on one PostgreSQL schema', () => {
  it('(a) a coupon issued through replica 1 and used through replica 2 is 409 on replica 1', async () => {
    const issued = await post(`${r1.url}/admin/v1/websites/site-a/coupons`, { coupons: [{ code: 'REPLICA-BEAT-1', discount: 5 }] }, bearer(ADMIN_TOKEN));
    expect(issued.status).toBe(201);
    expect(await issued.json()).toEqual({ issued: 1 });
    const used = await fetch(`${r2.url}/b2b/coupon/mark_as_used?code=REPLICA-BEAT-1&client=site-a`);
    expect(used.status).toBe(200);
    expect(((await used.json()) as { payload: { code: string } }).payload.code).toBe('REPLICA-BEAT-1');
    const again = await fetch(`${r1.url}/b2b/coupon/mark_as_used?code=REPLICA-BEAT-1&client=client-a`);
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ type: -1, code: 409 });
    expect((await stats(r1)).coupons).toEqual({ issued: 1, used: 1 });
    expect((await stats(r2)).coupons).toEqual({ issued: 1, used: 1 });
  });

  it('(a\'\') concurrent coupon calls through both replicas: exactly one 200, the others 409', async () => {
    const issued = await post(`${r2.url}/admin/v1/websites/site-a/coupons`, { coupons: [{ code: 'REPLICA-RACE' }] }, bearer(ADMIN_TOKEN));
    expect(issued.status).toBe(201);
    const calls = Array.from({ length: 16 }, (_, i) => fetch(`${(i % 2 ? r1 : r2).url}/b2b/coupon/mark_as_used?code=REPLICA-RACE&client=${i % 4 < 2 ? 'site-a' : 'client-a'}`));
    const statuses = (await Promise.all(calls)).map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array<number>(15).fill(409)]);
  });

  it('(a\') a code made known by a purchase through replica 2 is used through replica 1; its reuse is flagged in either replica\'s report', async () => {
    const withCode = (orderId: string) => ({
      customerId: CUSTOMER, sessionId: SESSION,
      events: [{ currentUrl: 'https://shop.example/thanks', eventTime: eventTime(), orderId, products: [{ refId: refIds[0], quantity: 1, price: 20 }], priceBeatPromotions: [{ code: 'REPLICA-PB-2', discount: 2 }] }],
    });
    expect((await sendPurchase(r2, withCode('pb-1'))).status).toBe(202);
    expect((await fetch(`${r1.url}/b2b/coupon/mark_as_used?code=REPLICA-PB-2&client=site-a`)).status).toBe(200);
    expect((await fetch(`${r2.url}/b2b/coupon/mark_as_used?code=REPLICA-PB-2&client=site-a`)).status).toBe(409);
    expect((await sendPurchase(r2, withCode('pb-2'))).status).toBe(202);
    for (const r of [r1, r2]) {
      const res = await fetch(`${r.url}/admin/v1/websites/site-a/reports/attribution`, { headers: bearer(ADMIN_TOKEN) });
      expect(res.status).toBe(200);
      const report = (await res.json()) as { priceBeat: { code: string; orders: number; reused: number }[] };
      expect(report.priceBeat.find((p) => p.code === 'REPLICA-PB-2'), r.name).toMatchObject({ orders: 2, reused: 1 });
    }
  });

  it('(e) a search key created through replica 1 opens search on replica 2; revoked through replica 1, replica 2 refuses it', async () => {
    const created = await post(`${r1.url}/admin/v1/websites/site-a/keys`, { actions: ['search'], scope: { brand: ['Acme'] } }, bearer(ADMIN_TOKEN));
    expect(created.status).toBe(201);
    const { key, id } = (await created.json()) as { key: string; id: string };
    const searchOn = (r: Replica) => post(`${r.url}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q: '', start: 0, size: 50 }, bearer(key));
    // Found in the store at its first use on the other replica.
    const first = await searchOn(r2);
    expect(first.status).toBe(200);
    const brands = ((await first.json()) as { payload: { result: { brand?: string }[] } }).payload.result.map((p) => p.brand);
    expect(brands.length).toBeGreaterThan(0);
    expect(new Set(brands)).toEqual(new Set(['Acme']));
    expect((await fetch(`${r1.url}/admin/v1/websites/site-a/keys/${id}`, { method: 'DELETE', headers: bearer(ADMIN_TOKEN) })).status).toBe(204);
    expect((await searchOn(r1)).status).toBe(401);
    await eventually(async () => (await searchOn(r2)).status === 401, 'replica 2 still accepts the revoked key');
  });

  it('(k) a click sent to replica 2 right after the search answered by replica 1 is accepted; a clickId sent to both is stored once', async () => {
    const res = await post(`${r1.url}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q: '', start: 0, size: 5 }, bearer(TOKEN_A));
    expect(res.status).toBe(200);
    const page = (await res.json()) as { query_id: string; payload: { result: { refId: string }[] } };
    const clickId = '5f0c9f3e-7d2a-4b6e-9c1a-3e8d2f4b6a70';
    const body = {
      customerId: CUSTOMER, sessionId: SESSION,
      events: [{ eventTime: eventTime(), refId: page.payload.result[1]!.refId, type: 'click', queryId: page.query_id, position: 2, clickId }],
    };
    // At once: replica 1 has not necessarily written the page yet; replica 2 waits for it (CROSS_REPLICA_GRACE_MS).
    const [onR2, onR1] = await Promise.all([post(`${r2.url}/3.0/events/clicks`, body, bearer(TOKEN_A)), post(`${r1.url}/3.0/events/clicks`, body, bearer(TOKEN_A))]);
    expect([onR2.status, onR1.status], await onR2.clone().text()).toEqual([202, 202]);
    const ids = await Promise.all([onR2, onR1].map(async (r) => ((await r.json()) as { transactionId: string }).transactionId));
    expect(ids[0]).toBe(ids[1]);
    const wrong = await post(`${r2.url}/3.0/events/clicks`, { ...body, events: [{ ...body.events[0], position: 1, clickId: undefined }] }, bearer(TOKEN_A));
    expect(wrong.status).toBe(400);
    expect(Object.keys(((await wrong.json()) as { errors: Record<string, string[]> }).errors)).toEqual(['events[0].Position']);
  });

  it('(b) concurrent duplicate orderIds sent to both replicas at once are counted once, with one transactionId', async () => {
    const before = await stats(r1);
    const n = 20;
    const bodies = Array.from({ length: n }, (_, i) => purchase(`dup-${i}`, [refIds[i % 40]!, refIds[(i + 7) % 40]!]));
    const acks = await Promise.all(bodies.flatMap((body) => [sendPurchase(r1, body), sendPurchase(r2, body)]));
    for (let i = 0; i < n; i++) {
      expect(acks[2 * i]!.status).toBe(202);
      expect(acks[2 * i + 1]!.status).toBe(202);
      expect(acks[2 * i]!.transactionId, `dup-${i}`).toBe(acks[2 * i + 1]!.transactionId);
    }
    expect(new Set(acks.map((a) => a.transactionId)).size).toBe(n);
    const [s1, s2] = await Promise.all([stats(r1), stats(r2)]);
    expect(s1.orders - before.orders).toBe(n);
    expect(s1.purchases - before.purchases).toBe(n);
    expect(s2.orders).toBe(s1.orders);
    expect(s2.purchases).toBe(s1.purchases);
  });

  it('(c) purchases through replica 1 reach the PopularItems of replica 2', async () => {
    for (let i = 0; i < 12; i++) expect((await sendPurchase(r1, purchase(`pop-${i}`, ['POP-X', refIds[i]!]))).status).toBe(202);
    await eventually(async () => (await popular(r2))[0] === 'POP-X', async () => `replica 2 PopularItems: ${(await popular(r2)).join(', ')}`);
    expect((await popular(r1))[0]).toBe('POP-X');
  });

  it('(c\') views through replica 1 reach the RecentlyViewed of replica 2', async () => {
    const viewer = '5c0e7d2a-1b3f-4a6e-9d8c-7f1e2a3b4c5d';
    const viewed = [refIds[3]!, refIds[4]!];
    const res = await post(`${r1.url}/3.0/events/views`, {
      customerId: viewer, sessionId: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
      events: viewed.map((refId) => ({ currentUrl: `https://shop.example/p/${refId}`, eventTime: eventTime(), refId })),
    }, bearer(TOKEN_A));
    expect(res.status).toBe(202);
    const recent = async () => {
      const r = await fetch(`${r2.url}/1.0/ClientRecom/site-a/RecentlyViewed?customerId=${viewer}`);
      expect(r.status).toBe(200);
      return ((await r.json()) as { payload: string[] }).payload;
    };
    await eventually(async () => {
      const payload = await recent();
      return viewed.every((v) => payload.includes(v));
    }, async () => `replica 2 RecentlyViewed: ${(await recent()).join(', ')}`);
  });

  it('(d) SIGKILL of replica 2 while purchases stream into it: every acknowledged order is counted once, and the restarted replica rebuilds its models', async () => {
    const before = await stats(r1);
    const acknowledged = new Map<string, string>();
    const attempted: string[] = [];
    const unexpected: string[] = [];
    /** Each order's body as sent: a replay sends the same order (other content is a 409). */
    const sent = new Map<string, Record<string, unknown>>();
    let next = 0;
    let stop = false;
    const target = r2;
    const stream = async () => {
      while (!stop) {
        const orderId = `kill-${next++}`;
        attempted.push(orderId);
        let ack: { status: number; transactionId?: string };
        const body = purchase(orderId, ['KILL-Y', refIds[next % 40]!]);
        sent.set(orderId, body);
        try {
          ack = await sendPurchase(target, body);
        } catch {
          return; // the connection died with the replica: not acknowledged
        }
        if (ack.status === 202) acknowledged.set(orderId, ack.transactionId!);
        else unexpected.push(`${orderId} answered ${ack.status}`);
      }
    };
    const streams = Array.from({ length: 4 }, stream);
    await eventually(async () => acknowledged.size >= 30, () => `only ${acknowledged.size} acknowledged`, 30_000);
    await kill(r2, 'SIGKILL');
    stop = true;
    await Promise.all(streams);
    expect(acknowledged.size).toBeGreaterThanOrEqual(30);
    expect(unexpected).toEqual([]);
    // Each stream had a request in flight (or about to be sent) when the replica died.
    expect(attempted.length).toBeGreaterThan(acknowledged.size);

    r2 = await startReplica('r2');
    // The catalog comes back from PostgreSQL (snapshot and change log), as it is before the replica reports ready.
    expect((await stats(r2)).products).toBe(catalog.length);
    // Its models were rebuilt from the store at start: the bestseller of (c), which r2 only ever
    // learnt by polling, and the orders it took before the kill.
    const rebuilt = await popular(r2, 10);
    expect(rebuilt.length).toBeGreaterThan(0);
    expect(rebuilt).toContain('POP-X');
    expect(rebuilt).toContain('KILL-Y');

    // Every acknowledged order is stored: sending it again to either replica is a replay with the
    // acknowledged transactionId, and nothing is counted again.
    const afterRestart = await stats(r1);
    expect(afterRestart.orders - before.orders).toBeGreaterThanOrEqual(acknowledged.size);
    expect(afterRestart.orders - before.orders).toBeLessThanOrEqual(attempted.length);
    let i = 0;
    for (const [orderId, transactionId] of acknowledged) {
      const replica = i++ % 2 ? r1 : r2;
      const replay = await sendPurchase(replica, sent.get(orderId)!);
      expect(replay, orderId).toEqual({ status: 202, transactionId });
    }
    expect((await stats(r1)).orders).toBe(afterRestart.orders);
    // The orders in flight at the kill were either stored whole or not at all: sending them all again
    // makes the count exactly one per attempted order.
    for (const orderId of attempted) if (!acknowledged.has(orderId)) expect((await sendPurchase(r1, sent.get(orderId)!)).status).toBe(202);
    const [s1, s2] = await Promise.all([stats(r1), stats(r2)]);
    expect(s1.orders - before.orders).toBe(attempted.length);
    expect(s2.orders).toBe(s1.orders);

    // Both replicas end with the same popular items (r2 by replay and polling, r1 live and by polling):
    // the same set, and the same clear leaders. (Equally popular items may come in a different order:
    // ties break by each process's interned id, i.e. the order in which it first saw the items.)
    await eventually(async () => {
      const [p1, p2] = await Promise.all([popular(r1, 100), popular(r2, 100)]);
      return JSON.stringify([...p1].sort()) === JSON.stringify([...p2].sort()) && p1.slice(0, 2).join() === 'KILL-Y,POP-X' && p2.slice(0, 2).join() === 'KILL-Y,POP-X';
    }, async () => `r1 ${(await popular(r1, 100)).join(',')} / r2 ${(await popular(r2, 100)).join(',')}`);
    // The reports, computed from the shared store, agree.
    const reports = await Promise.all([r1, r2].map(async (r) => {
      const res = await fetch(`${r.url}/admin/v1/websites/site-a/reports/attribution`, { headers: bearer(ADMIN_TOKEN) });
      expect(res.status).toBe(200);
      return ((await res.json()) as { totals: { orders: number } }).totals;
    }));
    expect(reports[1]).toEqual(reports[0]);
    expect(reports[0]!.orders).toBe(s1.orders);
    const health = await fetch(`${r2.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('(s) settings changed through one replica apply on the other, without a restart', async () => {
    const total = async (r: Replica, q: string) => {
      const res = await post(`${r.url}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q, start: 0 }, bearer(TOKEN_A));
      expect(res.status).toBe(200);
      return ((await res.json()) as { payload: { total_results: number } }).payload.total_results;
    };
    const patch = (r: Replica, body: unknown) => post(`${r.url}/admin/v1/websites/site-a/settings`, body, bearer(ADMIN_TOKEN), 'PATCH');
    expect(await total(r2, 'zanzibarx')).toBe(0);
    expect((await patch(r1, { synonyms: [['zanzibarx', 'bestseller']] })).status).toBe(200);
    expect(await total(r1, 'zanzibarx')).toBe(1);
    await eventually(async () => (await total(r2, 'zanzibarx')) === 1, async () => `r2 finds ${await total(r2, 'zanzibarx')}`);
    // And back: a rule made through replica 2 hides the product on replica 1.
    expect((await patch(r2, { rules: [{ id: 'hide-pop', query: 'bestseller', hide: ['POP-X'] }] })).status).toBe(200);
    await eventually(async () => (await total(r1, 'bestseller')) === 0, async () => `r1 finds ${await total(r1, 'bestseller')}`);
    const got = await fetch(`${r1.url}/admin/v1/websites/site-a/settings`, { headers: bearer(ADMIN_TOKEN) });
    expect(await got.json()).toMatchObject({ synonyms: [['zanzibarx', 'bestseller']], rules: [{ id: 'hide-pop' }] });
  });

  it('(s\') two PATCHes of the settings with the same If-Match, one to each replica at once: exactly one is applied, the other answers 412', async () => {
    const settings = (r: Replica) => fetch(`${r.url}/admin/v1/websites/site-a/settings`, { headers: bearer(ADMIN_TOKEN) });
    for (let round = 0; round < 3; round++) {
      // Both replicas at the same version (each applies the other's writes within its poll interval).
      let etag = '';
      await eventually(async () => {
        const [a, b] = await Promise.all([r1, r2].map(async (r) => (await settings(r)).headers.get('etag')));
        etag = a!;
        return a === b;
      }, 'both replicas answer the same ETag');
      const answers = await Promise.all([r1, r2].map((r, i) => post(`${r.url}/admin/v1/websites/site-a/settings`, { stopWords: [`round${round}-replica${i + 1}`] },
        { ...bearer(ADMIN_TOKEN), 'if-match': etag }, 'PATCH')));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 412]);
      const winner = answers.find((r) => r.status === 200)!;
      const won = ((await winner.json()) as { stopWords: string[] }).stopWords;
      for (const r of [r1, r2]) {
        await eventually(async () => (await settings(r)).headers.get('etag') === winner.headers.get('etag'), 'the winner\'s version on both replicas');
        expect(((await (await settings(r)).json()) as { stopWords: string[] }).stopWords).toEqual(won);
      }
    }
  });

  it('(x) an experiment created through one replica assigns alike on the other; concurrent creations give one; both replicas report the same', async () => {
    const body = (name: string) => ({ name, kind: 'search', variants: [{ name: 'control' }, { name: 'redirect', settings: { redirects: [{ queries: ['acme'], url: '/acme' }] } }] });
    const created = await Promise.all([post(`${r1.url}/admin/v1/websites/site-a/experiments`, body('one'), bearer(ADMIN_TOKEN)),
      post(`${r2.url}/admin/v1/websites/site-a/experiments`, body('two'), bearer(ADMIN_TOKEN))]);
    expect(created.map((r) => r.status).sort()).toEqual([201, 409]);
    const { id } = (await created.find((r) => r.status === 201)!.json()) as { id: string };
    type Answer = { query_id: string; payload: { result: { refId: string }[]; redirects: { url?: string } }; settings?: { experiment?: { id: string; variant: string } } };
    const searchOn = async (r: Replica, customerId: string): Promise<Answer> => {
      const res = await post(`${r.url}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q: 'acme', start: 0, customer_id: customerId }, bearer(TOKEN_A));
      expect(res.status).toBe(200);
      return (await res.json()) as Answer;
    };
    const customers = Array.from({ length: 16 }, (_, i) => `${String(i).padStart(8, '0')}-5b2f-4f4e-9a51-0c6f3c1e2a10`);
    // Both replicas know the experiment within the poll interval.
    // (Either replica may have created it: wait for both.)
    for (const [r, name] of [[r1, 'replica 1'], [r2, 'replica 2']] as const) {
      await eventually(async () => (await searchOn(r, customers[0]!)).settings?.experiment?.id === id, `${name} does not tag with the experiment`);
    }
    for (const [i, customerId] of customers.entries()) {
      const [a, b] = [await searchOn(r1, customerId), await searchOn(r2, customerId)];
      expect(a.settings!.experiment).toEqual(b.settings!.experiment);
      expect(a.payload.redirects.url).toBe(a.settings!.experiment!.variant === 'redirect' ? '/acme' : undefined);
      expect(b.payload.redirects.url).toBe(a.payload.redirects.url);
      if (i % 2 === 0) {
        // A click on replica 2 on the page replica 1 answered: counted for the customer's variant.
        const click = await post(`${r2.url}/3.0/events/clicks`, {
          customerId, sessionId: customerId, events: [{ eventTime: eventTime(), refId: a.payload.result[0]!.refId, type: 'click', queryId: a.query_id, position: 1 }],
        }, bearer(TOKEN_A));
        expect(click.status, await click.clone().text()).toBe(202);
      }
    }
    const report = async (r: Replica) => {
      const res = await fetch(`${r.url}/admin/v1/websites/site-a/experiments/${id}`, { headers: bearer(ADMIN_TOKEN) });
      expect(res.status).toBe(200);
      return (await res.json()) as { variants: { name: string; users: number; searches: number; clicks: number; ctr: { value: number } }[] };
    };
    // Each report counts what its replica logged so far (replica 1 holds each search until its
    // search-as-you-type chain can no longer grow; replica 2 keeps the clicks back until then): once
    // both have written, they agree, and every click counts in its search's CTR.
    const complete = async () => {
      const [a, b] = [await report(r1), await report(r2)];
      const clicked = a.variants.reduce((n, v) => n + Math.round(v.ctr.value * v.searches), 0);
      return JSON.stringify(a.variants) === JSON.stringify(b.variants) && clicked === customers.length / 2
        && a.variants.reduce((n, v) => n + v.clicks, 0) === customers.length / 2;
    };
    await eventually(complete, async () => JSON.stringify([await report(r1), await report(r2)]), 40_000);
    const final = await report(r1);
    expect(final.variants.reduce((n, v) => n + v.users, 0)).toBe(customers.length);
    // Stopped through replica 2: replica 1 serves the control untagged.
    expect((await post(`${r2.url}/admin/v1/websites/site-a/experiments/${id}/stop`, '', bearer(ADMIN_TOKEN))).status).toBe(200);
    await eventually(async () => (await searchOn(r1, customers[0]!)).settings?.experiment === undefined, 'replica 1 still tags with the stopped experiment');
  }, 90_000);
});
