/**
 * Catalogs shared through the PostgreSQL change log, with engines in one process (the process-level
 * test with three `aisle serve` replicas is packages/http-adapter/test/catalog-replicas.test.ts):
 * changes through either engine reach the other, concurrent patches merge in log order, a new engine
 * on an empty data directory starts from the stored snapshot plus the log, old rows are pruned.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../engine.js';
import type { Engine } from '../engine-api.js';
import type { EngineOptions, WebsiteConfig } from '../config.js';
import { CuttableProxy, TEST_PG_URL, TestSchemas, queryTestDb, requirePostgres } from '../store/pg-test-env.js';
import type { Product } from '../types.js';
import { CatalogReplication } from './catalog-replication.js';
import { decodeChange, encodeChange } from './pg-catalog-change-log.js';

describe('change payloads', () => {
  it('a big change is split into parts and joined back whole', () => {
    const products: Product[] = Array.from({ length: 3000 }, (_, i) => ({ refId: `P${i}`, title: 'x'.repeat(4000), n: i }));
    const parts = encodeChange({ kind: 'replace', products });
    expect(parts.length).toBeGreaterThan(1);
    expect(decodeChange(parts)).toEqual({ kind: 'replace', products });
    const patch = { kind: 'patch' as const, patches: products, positions: products.map((_, i) => i * 2 + 1), onError: 'skip' as const };
    expect(decodeChange(encodeChange(patch))).toEqual(patch);
    expect(decodeChange(encodeChange({ kind: 'replace', products: [] }))).toEqual({ kind: 'replace', products: [] });
    expect(decodeChange(encodeChange({ kind: 'delete', refIds: ['a', 'ü'] }))).toEqual({ kind: 'delete', refIds: ['a', 'ü'] });
  });
});

const schemas = new TestSchemas();
const tmp = mkdtempSync(path.join(tmpdir(), 'aisle-catalog-replication-'));
const SITE: WebsiteConfig = { websiteId: 'site-r', client: 'client-r', tokens: ['token-r'], hmacSecret: 'secret' };
let schema: string;
const engines: Engine[] = [];

async function open(name: string, url = TEST_PG_URL): Promise<Engine> {
  const options: EngineOptions = {
    dataDir: path.join(tmp, name), workers: 0, websites: [SITE],
    store: { type: 'postgres', url, schema, pollIntervalMs: 200, catalogSnapshotIntervalMs: 300 },
  };
  const engine = await createEngine(options);
  engines.push(engine);
  return engine;
}

async function eventually(probe: () => Promise<boolean>, describe: () => Promise<string>, deadlineMs = 15_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > end) throw new Error(`not reached within ${deadlineMs} ms: ${await describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const sql = queryTestDb;

/** Every product of an engine's catalog, by refId (via search of everything). */
async function products(engine: Engine): Promise<Record<string, Product>> {
  const res = await engine.search({ website_id: SITE.websiteId, client: SITE.client, q: '', start: 0, size: 1000 });
  return Object.fromEntries(res.payload.result.map((p) => [p.refId, p]));
}

const base: Product[] = Array.from({ length: 20 }, (_, i) => ({ refId: `R${i}`, title: `item ${i}`, brand: 'Acme', price: 10 + i, availability: 1 }));

let a: Engine;
let b: Engine;

beforeAll(async () => {
  await requirePostgres();
  schema = schemas.next();
  a = await open('a');
  b = await open('b');
}, 60_000);

afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
  await schemas.dropAll();
  rmSync(tmp, { recursive: true, force: true });
}, 60_000);

describe('two engines on one PostgreSQL schema', () => {
  it('an upsert through one is applied by the other; patches, deletes and replaces too', async () => {
    expect(await a.upsertProducts(SITE.websiteId, base)).toMatchObject({ loaded: 20, catalogSize: 20 });
    await eventually(async () => Object.keys(await products(b)).length === 20, async () => `b has ${Object.keys(await products(b)).length}`);
    expect(await b.getProduct(SITE.websiteId, 'R3')).toEqual(base[3]);

    expect(await b.patchProducts(SITE.websiteId, [{ refId: 'R3', price: 99, brand: null }])).toMatchObject({ loaded: 1, catalogSize: 20 });
    expect(await b.getProduct(SITE.websiteId, 'R3')).toEqual({ refId: 'R3', title: 'item 3', price: 99, availability: 1 });
    await eventually(async () => (await a.getProduct(SITE.websiteId, 'R3'))?.price === 99, async () => JSON.stringify(await a.getProduct(SITE.websiteId, 'R3')));
    expect(await a.getProduct(SITE.websiteId, 'R3')).toEqual({ refId: 'R3', title: 'item 3', price: 99, availability: 1 });

    expect(await a.deleteProducts(SITE.websiteId, ['R4', 'nope'])).toEqual({ deleted: 1, catalogSize: 19 });
    expect(await a.deleteProducts(SITE.websiteId, ['nope'])).toEqual({ deleted: 0, catalogSize: 19 });
    await eventually(async () => (await b.getProduct(SITE.websiteId, 'R4')) === undefined, async () => 'R4 still on b');
  });

  it('concurrent patches of one product through both engines both land, in the same order everywhere', async () => {
    await Promise.all([
      a.patchProducts(SITE.websiteId, [{ refId: 'R5', colour: 'red', price: 1 }]),
      b.patchProducts(SITE.websiteId, [{ refId: 'R5', size: 'XL', price: 2 }]),
    ]);
    await eventually(async () => JSON.stringify(await a.getProduct(SITE.websiteId, 'R5')) === JSON.stringify(await b.getProduct(SITE.websiteId, 'R5')),
      async () => `${JSON.stringify(await a.getProduct(SITE.websiteId, 'R5'))} / ${JSON.stringify(await b.getProduct(SITE.websiteId, 'R5'))}`);
    expect(await a.getProduct(SITE.websiteId, 'R5')).toMatchObject({ colour: 'red', size: 'XL', title: 'item 5' });
  });

  it('a patch of an unknown refId is refused and changes nothing on any replica; with skip it is listed', async () => {
    await expect(a.patchProducts(SITE.websiteId, [{ refId: 'R6', price: 5 }, { refId: 'GHOST', price: 1 }])).rejects.toMatchObject({ code: 'CATALOG_BAD_INPUT' });
    expect((await a.getProduct(SITE.websiteId, 'R6'))?.price).toBe(16);
    // A product created through one replica and at once patched and deleted through the other: the log decides, not b's view.
    await a.upsertProducts(SITE.websiteId, [{ refId: 'FRESH', title: 'fresh', price: 1 }]);
    expect(await b.patchProducts(SITE.websiteId, [{ refId: 'FRESH', price: 2 }])).toMatchObject({ loaded: 1 });
    expect(await b.deleteProducts(SITE.websiteId, ['FRESH'])).toMatchObject({ deleted: 1 });
    await eventually(async () => (await a.getProduct(SITE.websiteId, 'FRESH')) === undefined, async () => 'FRESH still on a');
    expect((await b.getProduct(SITE.websiteId, 'R6'))?.price).toBe(16);
    const summary = await a.patchProducts(SITE.websiteId, [{ refId: 'GHOST', price: 1 }, { refId: 'R6', price: 5 }], { onError: 'skip' });
    expect(summary).toMatchObject({ loaded: 1, skipped: [{ line: 1 }] });
  });

  it('a burst of upserts through both engines converges to the same catalog on both', async () => {
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 30; i++) {
      const engine = i % 2 ? a : b;
      writes.push(engine.upsertProducts(SITE.websiteId, [{ refId: `B${i % 7}`, title: `burst ${i}`, price: i }]));
    }
    await Promise.all(writes);
    await eventually(async () => JSON.stringify(await products(a)) === JSON.stringify(await products(b)), async () => 'catalogs differ');
  });

  it('a bulk delete, by refIds or by scope, is one logged change that the other engine applies', async () => {
    await a.upsertProducts(SITE.websiteId, Array.from({ length: 30 }, (_, i) => ({ refId: `X${i}`, title: 'bulk', brand: i % 2 ? 'Odd' : 'Even', price: i })));
    await eventually(async () => (await b.getProduct(SITE.websiteId, 'X29')) !== undefined, async () => 'X29 not on b');
    // Changes logged so far: the log's sequence (snapshots prune old rows meanwhile; nothing else writes here now).
    const changes = async () => Number((await sql<{ v: string }>(`SELECT last_value::text AS v FROM "${schema}".change_log_seq_seq`))[0]!.v);
    const before = await changes();
    expect(await b.bulkDeleteProducts(SITE.websiteId, { refIds: ['X0', 'X1', 'missing'] })).toEqual({ deleted: 2, notFound: ['missing'] });
    expect(await b.bulkDeleteProducts(SITE.websiteId, { scope: { brand: ['Odd'], price: { min: 10 } } })).toEqual({ deleted: 10, notFound: [] });
    expect(await changes()).toBe(before + 2);
    await eventually(async () => (await a.getProduct(SITE.websiteId, 'X29')) === undefined, async () => 'X29 still on a');
    const left = Object.keys(await products(a)).filter((id) => id.startsWith('X')).sort();
    expect(left).toEqual(Object.keys(await products(b)).filter((id) => id.startsWith('X')).sort());
    expect(left).toEqual([...Array.from({ length: 14 }, (_, i) => `X${2 * i + 2}`), 'X3', 'X5', 'X7', 'X9'].sort());
    await expect(a.bulkDeleteProducts(SITE.websiteId, { scope: {} })).rejects.toMatchObject({ code: 'CATALOG_BAD_INPUT' });
    expect(await changes()).toBe(before + 2);
  });

  it('a new engine on an empty data directory starts from the stored snapshot plus the log; old rows are pruned', async () => {
    await eventually(async () => (await sql(`SELECT 1 FROM "${schema}".catalog_snapshots WHERE website_id = $1`, [SITE.websiteId])).length === 1, async () => 'no snapshot stored');
    // A change after the snapshot: the new engine gets it from the log.
    await a.upsertProducts(SITE.websiteId, [{ refId: 'AFTER', title: 'after the snapshot', price: 3 }]);
    const c = await open('c');
    expect(await products(c)).toEqual(await products(a));
    expect(await c.getProduct(SITE.websiteId, 'AFTER')).toEqual({ refId: 'AFTER', title: 'after the snapshot', price: 3 });
    // A second snapshot lets the rows the first one held go.
    const [first] = await sql<{ seq: string }>(`SELECT seq FROM "${schema}".catalog_snapshots WHERE website_id = $1`, [SITE.websiteId]);
    await b.upsertProducts(SITE.websiteId, [{ refId: 'LATER', title: 'later', price: 4 }]);
    await eventually(async () => {
      const [mark] = await sql<{ pruned_through: string }>(`SELECT pruned_through FROM "${schema}".catalog_snapshots WHERE website_id = $1`, [SITE.websiteId]);
      return Number(mark?.pruned_through ?? 0) >= Number(first!.seq);
    }, async () => 'not pruned');
    const [{ n }] = await sql<{ n: string }>(`SELECT COUNT(*) AS n FROM "${schema}".change_log WHERE website_id = $1 AND seq <= $2`, [SITE.websiteId, first!.seq]) as [{ n: string }];
    expect(Number(n)).toBe(0);
    await eventually(async () => (await c.getProduct(SITE.websiteId, 'LATER')) !== undefined, async () => 'LATER not on c');
  });
});

describe('a PostgreSQL outage seen by one replica', () => {
  it('refuses catalog changes (STORE_FAILURE), keeps serving searches, and catches up once PostgreSQL is back', async () => {
    const proxy = new CuttableProxy();
    const d = await open('d-outage', await proxy.start());
    try {
      expect(await products(d)).toEqual(await products(a));
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(w.message);
      process.on('warning', onWarning);
      proxy.cut();
      await expect(d.upsertProducts(SITE.websiteId, [{ refId: 'DURING', title: 'during the outage' }])).rejects.toMatchObject({ code: 'STORE_FAILURE' });
      await expect(d.patchProducts(SITE.websiteId, [{ refId: 'R9', price: 5 }])).rejects.toMatchObject({ code: 'STORE_FAILURE' });
      // Reads are served from memory.
      expect((await d.search({ website_id: SITE.websiteId, client: SITE.client, q: 'item', start: 0 })).payload.total_results).toBeGreaterThan(0);
      expect(await d.getProduct(SITE.websiteId, 'R9')).toBeDefined();
      // Meanwhile another replica changes the catalog.
      await a.patchProducts(SITE.websiteId, [{ refId: 'R9', price: 777 }]);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect((await d.getProduct(SITE.websiteId, 'R9'))?.price).not.toBe(777);
      proxy.restore();
      await eventually(async () => (await d.getProduct(SITE.websiteId, 'R9'))?.price === 777, async () => JSON.stringify(await d.getProduct(SITE.websiteId, 'R9')));
      expect(await d.upsertProducts(SITE.websiteId, [{ refId: 'AFTER-OUTAGE', title: 'back' }])).toMatchObject({ loaded: 1 });
      await eventually(async () => (await a.getProduct(SITE.websiteId, 'AFTER-OUTAGE')) !== undefined, async () => 'not on a');
      expect(await a.getProduct(SITE.websiteId, 'DURING')).toBeUndefined();
      process.off('warning', onWarning);
      // The outage was reported once, not at every poll.
      expect(warnings.filter((w) => w.includes('reading the catalog change log')).length).toBe(1);
    } finally {
      await d.close();
      engines.splice(engines.indexOf(d), 1);
      await proxy.close();
    }
  }, 60_000);
});

describe('a replica that falls two snapshots behind', () => {
  it('does not skip the changes whose log rows were pruned meanwhile: it starts again from the stored snapshot', async () => {
    const gapSchema = schemas.next();
    const errors: string[] = [];
    const options = { url: TEST_PG_URL, schema: gapSchema, pollIntervalMs: 60_000, snapshotIntervalMs: 3_600_000, onError: (_: string, err: Error) => errors.push(err.message) };
    const writer = await CatalogReplication.open(options);
    const late = await CatalogReplication.open(options);
    try {
      await writer.loadCatalog('gap', {});
      await writer.start();
      await writer.upsert('gap', [{ refId: 'G1', title: 'first', price: 1 }, { refId: 'G2', title: 'second', price: 2 }]);
      await writer.writeSnapshots();
      // The late replica loads the first snapshot, then is busy (not yet reading the log) while the
      // writer changes G1, snapshots (rows of the first snapshot pruned), changes G2 and snapshots
      // again: the row of the G1 change is deleted before the late replica read it.
      const catalog = await late.loadCatalog('gap', {});
      await writer.patch('gap', [{ refId: 'G1', price: 10 }]);
      await writer.writeSnapshots();
      await writer.patch('gap', [{ refId: 'G2', price: 20 }]);
      await writer.writeSnapshots();
      await late.start();
      expect(catalog.getProduct('G1')?.price).toBe(10);
      expect(catalog.getProduct('G2')?.price).toBe(20);
      expect(errors).toEqual([]);
    } finally {
      await late.close();
      await writer.close();
    }
  }, 60_000);
});
