/**
 * Catalogs shared by replicas: three `aisle serve --config` processes (the CLI through tsx), each with
 * its own data directory and port, on one PostgreSQL schema (a random name per run, dropped
 * afterwards). Catalog changes made through any replica reach the others; a replica killed with
 * SIGKILL during a stream of changes converges after its restart; a replica started on an empty data
 * directory starts from the snapshot stored in PostgreSQL plus the change log, and is ready only then.
 * Waits have generous deadlines and assert nothing about speed (docs/benchmarks.md has the figures).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PG_URL, TestSchemas, queryTestDb, requirePostgres } from '../../engine/src/store/pg-test-env.js';
import { ReplicaSet, eventually as eventuallyWithin, startCli, type Replica } from './child-server.js';
import { ADMIN_TOKEN, SITE_A, TOKEN_A, bearer } from './helpers.js';

/** Generous: a loaded CI machine; the documented figure is within 2 s (measured in packages/bench). */
const DEADLINE_MS = 20_000;

const schemas = new TestSchemas();
const tmp = mkdtempSync(path.join(tmpdir(), 'aisle-catalog-replicas-'));
const configFile = path.join(tmp, 'aisle.config.json');
let schema: string;

const replicas = new ReplicaSet();

function startReplica(name: string): Promise<Replica> {
  return replicas.start(name, () => startCli(['--config', configFile, '--port', '0', '--host', '127.0.0.1', '--data-dir', path.join(tmp, name)]));
}

const kill = (replica: Replica, signal: NodeJS.Signals): Promise<void> => replicas.kill(replica, signal);

async function admin(r: Replica, method: string, pathAndQuery: string, body?: unknown): Promise<Response> {
  try {
    return await fetch(`${r.url}/admin/v1/websites/site-a${pathAndQuery}`, {
      method, headers: { ...bearer(ADMIN_TOKEN), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    // A replica that went away says why on its stderr.
    throw new Error(`${method} ${pathAndQuery} on replica ${r.name} failed: ${(error as Error).message}; its stderr: ${r.stderr().slice(-4000)}`, { cause: error });
  }
}

async function getProduct(r: Replica, refId: string): Promise<Record<string, unknown> | undefined> {
  const res = await admin(r, 'GET', `/products/${encodeURIComponent(refId)}`);
  if (res.status === 404) return undefined;
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

/** The whole catalog as search sees it: refId → product, in result order of refId. */
async function catalogOf(r: Replica): Promise<string> {
  const res = await fetch(`${r.url}/v1.4/search`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...bearer(TOKEN_A) },
    body: JSON.stringify({ website_id: 'site-a', client: 'client-a', q: '', start: 0, size: 200, sort_fields: [{ seq: { order: 'asc', type: 'number' } }] }),
  });
  expect(res.status).toBe(200);
  const payload = ((await res.json()) as { payload: { result: Record<string, unknown>[]; total_results: number } }).payload;
  return JSON.stringify([...payload.result].sort((x, y) => String(x.refId).localeCompare(String(y.refId))));
}

function eventually(probe: () => Promise<boolean>, describe: string | (() => Promise<string> | string), deadlineMs = DEADLINE_MS): Promise<void> {
  return eventuallyWithin(probe, describe, deadlineMs);
}

const catalog = Array.from({ length: 60 }, (_, i) => ({ refId: `C${i}`, title: `catalog item ${i}`, brand: i % 2 ? 'Acme' : 'Zeta', price: 10 + i, seq: i, availability: 3 }));

let r1: Replica;
let r2: Replica;
let r3: Replica;

beforeAll(async () => {
  await requirePostgres();
  schema = schemas.next();
  writeFileSync(configFile, JSON.stringify({
    store: { type: 'postgres', url: TEST_PG_URL, schema, pollIntervalMs: 200, catalogSnapshotIntervalMs: 1000 },
    adminTokens: [ADMIN_TOKEN], workers: 0, websites: [SITE_A],
  }));
  // The first creates the schema; the others start on it.
  r1 = await startReplica('r1');
  [r2, r3] = await Promise.all([startReplica('r2'), startReplica('r3')]);
}, 120_000);

afterAll(() => replicas.tearDown(schemas, tmp), 60_000);

describe('three replicas (aisle serve processes) share one catalog through PostgreSQL', () => {
  it('a feed loaded through one replica, a patch through another and a delete through the third reach all of them', async () => {
    const put = await admin(r1, 'PUT', '/products', catalog);
    expect(put.status, await put.clone().text()).toBe(200);
    expect(await put.json()).toMatchObject({ loaded: 60, catalogSize: 60 });
    await eventually(async () => (await getProduct(r3, 'C59')) !== undefined && (await getProduct(r2, 'C59')) !== undefined, 'C59 not on r2 and r3');

    const patch = await admin(r2, 'PATCH', '/products', [{ refId: 'C7', price: 1.5, brand: null, badge: 'sale' }]);
    expect(patch.status, await patch.clone().text()).toBe(200);
    // Acknowledged: visible on the replica that took it at once.
    expect(await getProduct(r2, 'C7')).toEqual({ refId: 'C7', title: 'catalog item 7', price: 1.5, seq: 7, availability: 3, badge: 'sale' });
    for (const r of [r1, r3]) await eventually(async () => (await getProduct(r, 'C7'))?.badge === 'sale', `C7 not patched on ${r.name}`);

    const del = await admin(r3, 'DELETE', '/products/C8');
    expect(await del.json()).toEqual({ deleted: 1, catalogSize: 59 });
    for (const r of [r1, r2]) await eventually(async () => (await getProduct(r, 'C8')) === undefined, `C8 still on ${r.name}`);
    const unknown = await admin(r1, 'PATCH', '/products', [{ refId: 'C8', price: 2 }]);
    expect(unknown.status).toBe(400);
  });

  it('a replica killed with SIGKILL during a stream of changes converges after its restart', async () => {
    let stop = false;
    let sent = 0;
    let created = 0;
    const failures: string[] = [];
    const stream = async (through: Replica, offset: number) => {
      for (let i = 0; !stop; i++) {
        const n = (i * 7 + offset) % 60;
        const res = i % 5 === 4
          ? await admin(through, 'PUT', '/products', [{ refId: `NEW-${offset}-${i}`, title: `new ${i}`, price: i, seq: 100 + i }])
          : await admin(through, 'PATCH', '/products?onError=skip', [{ refId: `C${n}`, price: 100 + i, touched: offset }]);
        if (res.status !== 200) failures.push(`${through.name}: ${res.status} ${await res.text()}`);
        else if (i % 5 === 4) created++;
        sent++;
      }
    };
    const streams = [stream(r1, 1), stream(r2, 2)];
    await eventually(async () => sent >= 20, () => `only ${sent} changes sent`);
    await kill(r3, 'SIGKILL');
    await eventually(async () => sent >= 60, () => `only ${sent} changes sent`);
    r3 = await startReplica('r3');
    await eventually(async () => sent >= 100, () => `only ${sent} changes sent`);
    stop = true;
    await Promise.all(streams);
    expect(failures).toEqual([]);
    // r1 is read afresh at every probe: a change acknowledged by r2 just before the streams stopped
    // may not have reached r1 yet (comparing with a copy taken once made this test flaky).
    let expected = '';
    await eventually(async () => {
      expected = await catalogOf(r1);
      return (await catalogOf(r2)) === expected && (await catalogOf(r3)) === expected;
    }, async () => {
      // Name the replica and the first product that differs.
      const want = JSON.parse(expected) as unknown[];
      const lines: string[] = [];
      for (const r of [r2, r3]) {
        const got = JSON.parse(await catalogOf(r)) as unknown[];
        const at = want.findIndex((p, i) => JSON.stringify(p) !== JSON.stringify(got[i]));
        if (at >= 0 || got.length !== want.length) {
          lines.push(`${r.name}: ${got.length} products vs ${want.length}; first difference at ${at}: ${JSON.stringify(got[at])} vs ${JSON.stringify(want[at])}`);
        }
      }
      return `replicas differ: ${lines.join('; ')}`;
    }, 60_000);
    expect(JSON.parse(expected)).toHaveLength(59 + created);
  }, 120_000);

  it('a replica started on an empty data directory starts from the stored snapshot plus the log, ready only then', async () => {
    await eventually(async () => (await queryTestDb(`SELECT 1 FROM "${schema}".catalog_snapshots WHERE website_id = 'site-a'`)).length === 1, 'no snapshot stored');
    // A change the snapshot may not hold yet: the new replica gets it from the log.
    expect((await admin(r2, 'PATCH', '/products', [{ refId: 'C1', title: 'after the snapshot' }])).status).toBe(200);
    const expected = await catalogOf(r2);
    const r4 = await startReplica('r4-empty');
    // Nothing changed meanwhile: the first answer is already the whole catalog.
    expect(await catalogOf(r4)).toBe(expected);
    expect((await getProduct(r4, 'C1'))?.title).toBe('after the snapshot');
    // Ready once the stored events are replayed into the models too (after the start, in the background).
    await eventually(async () => (await fetch(`${r4.url}/readyz`)).status === 200, 'r4 never got ready');
  }, 60_000);
});
