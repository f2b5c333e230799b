import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store.js';
import { SQLITE_MIGRATIONS } from './sqlite-db.js';
import { SqliteStore } from './sqlite-store.js';
import { contractPurchaseAppend, contractPurchaseEvent, runStoreContract } from './store-contract.js';
import type { Store, ViewAppend } from './store.js';
import { LIFETIME_GRAIN } from './analytics-rows.js';
import { lifetimeRowsSql } from './analytics-sql.js';
import { runPreviousVersionCheck } from './previous-version-check.js';

const dir = mkdtempSync(path.join(tmpdir(), 'aisle-sqlite-'));
let n = 0;
const files = new WeakMap<object, string>();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A store on a new file in the test directory. */
async function freshStore(): Promise<Store> {
  const file = path.join(dir, `store-${n++}.sqlite`);
  const store = SqliteStore.open({ file });
  files.set(store, file);
  return store;
}

runStoreContract('sqlite', freshStore, {
  reopen: async (store) => {
    const file = files.get(store)!;
    await store.close();
    return SqliteStore.open({ file });
  },
});

runPreviousVersionCheck('sqlite', {
  fresh: freshStore,
  migratedCopy: async (store) => {
    const current = files.get(store)!;
    await store.close();
    // The previous release's database: its migrations (those before the lifetime rows), then every row
    // of this release's database but the lifetime rows, which it never wrote.
    const version = SQLITE_MIGRATIONS.indexOf(lifetimeRowsSql(''));
    expect(version).toBeGreaterThan(0);
    const file = path.join(dir, `previous-${n++}.sqlite`);
    const previous = new Database(file);
    for (const sql of SQLITE_MIGRATIONS.slice(0, version)) previous.exec(sql);
    previous.pragma(`user_version = ${version}`);
    previous.prepare('ATTACH DATABASE ? AS current').run(current);
    const tables = previous.prepare<[], { name: string }>("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all();
    for (const { name } of tables) {
      // The previous release's columns only (later migrations add some: result_pages.span).
      const list = previous.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${name}')`).all().map((c) => c.name).join(', ');
      previous.exec(`INSERT INTO main.${name} (${list}) SELECT ${list} FROM current.${name}${name === 'analytics_rollups' ? ` WHERE grain <> '${LIFETIME_GRAIN}'` : ''}`);
    }
    previous.exec('DETACH DATABASE current');
    previous.close();
    return SqliteStore.open({ file });
  },
});

function views(websiteId: string, eventTimeMs: number | bigint): ViewAppend {
  return {
    websiteId, transactionId: 't', customerId: 'c', sessionId: 's', origin: 'test', receivedAt: 1,
    views: [{ refId: 'r', currentUrl: 'https://shop.example/p/r', eventTime: '2024-05-01T12:00:00Z', eventTimeMs: eventTimeMs as number }],
  };
}

/** A fixed script of writes and reads; every answer, in order. */
async function script(store: Store): Promise<unknown[]> {
  const base = { customerId: 'alice', sessionId: 's-1', origin: 'script', receivedAt: 1000 };
  const rich = contractPurchaseEvent('o1', {
    paymentMethod: undefined, currencyCode: 'EUR', recommenderId: 'r-1',
    products: [{ refId: 'a', quantity: 1, price: 2, widgetId: 'w', retailMedia: { adSetId: 'ad', adSetVersion: 1, costPerAction: 0.5, timeStamp: 't', hmacSalt: 'salt', hmac: 'h', flag: 'hmac_invalid' } }],
    priceBeatPromotions: [{ code: 'PB1', discount: 3 }, { code: 'PB2', discount: 1 }],
  });
  const out: unknown[] = [];
  out.push(await store.appendPurchases({ ...base, websiteId: 'w1', transactionId: 't1', events: [rich, contractPurchaseEvent('o2')] }));
  out.push(await store.markCouponUsed('w1', 'PB1', 2000));
  out.push(await Promise.all([
    store.appendPurchases({ ...base, websiteId: 'w1', transactionId: 't2', events: [contractPurchaseEvent('o1'), contractPurchaseEvent('o3', { priceBeatPromotions: [{ code: 'PB2', discount: 1 }, { code: 'PB1', discount: 3 }] })] }),
    store.appendPurchases({ ...base, websiteId: 'w1', transactionId: 't3', customerId: 'bob', events: [contractPurchaseEvent('o4', { priceBeatPromotions: [{ code: 'PB1', discount: 3 }] })] }),
    store.appendViews(views('w1', 5)),
    store.appendPurchases({ ...base, websiteId: 'w1', transactionId: 't4', events: [contractPurchaseEvent('o2')] }),
  ]));
  out.push(await store.issueCoupons('w1', [{ code: 'FREE' }], 3000));
  out.push(await store.appendPurchases({ ...base, websiteId: 'w1', transactionId: 't5', customerId: 'carol', events: [contractPurchaseEvent('o5', { priceBeatPromotions: [{ code: 'FREE', discount: 1 }] })] }));
  out.push(await store.getCoupon('w1', 'FREE'), await store.getCoupon('w1', 'PB1'), await store.counts('w1'), await store.lastSequence());
  out.push(await store.readEvents({ afterSeq: 0, limit: 100 }));
  return out;
}

describe('SqliteStore on its worker thread', () => {
  it('answers as the memory store does (stored events rebuilt on this side of the thread boundary)', async () => {
    const memory = new MemoryStore();
    const sqlite = SqliteStore.open({ file: path.join(dir, `script-${n++}.sqlite`) });
    try {
      expect(await script(sqlite)).toStrictEqual(await script(memory));
    } finally {
      await Promise.all([memory.close(), sqlite.close()]);
    }
  });

  it('throws at open when the file cannot be opened', () => {
    expect(() => SqliteStore.open({ file: dir })).toThrow(Database.SqliteError);
  });

  it('rejects with the error the worker met, its class and code kept, and spares the batch neighbours', async () => {
    const file = path.join(dir, `errors-${n++}.sqlite`);
    const store = SqliteStore.open({ file });
    try {
      // Both go into one batch; the bad one fails it, and each is retried alone.
      const [bad, good] = await Promise.allSettled([store.appendViews(views('w1', 1n)), store.appendViews(views('w1', 1))]);
      expect(bad.status).toBe('rejected');
      expect((bad as PromiseRejectedResult).reason).toBeInstanceOf(TypeError);
      expect(((bad as PromiseRejectedResult).reason as Error).message).toMatch(/BigInt/);
      expect(good).toEqual({ status: 'fulfilled', value: { recorded: 1 } });

      const other = new Database(file);
      other.exec('DROP TABLE coupons');
      other.close();
      const err = await store.issueCoupons('w1', [{ code: 'A' }], 1).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(Database.SqliteError);
      expect((err as { code: string }).code).toBe('SQLITE_ERROR');
      expect((err as Error).message).toMatch(/coupons/);
      // The store still works after errors.
      expect(await store.readEvents({ afterSeq: 0, limit: 10 })).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('fails calls after close as before: writes with "store is closed", reads as a closed connection', async () => {
    const store = SqliteStore.open({ file: path.join(dir, `closed-${n++}.sqlite`) });
    const pending = store.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o1')]));
    await Promise.all([store.close(), store.close()]);
    expect((await pending).orders[0]!.status).toBe('recorded');
    await expect(store.appendPurchases(contractPurchaseAppend('w1', [contractPurchaseEvent('o2')]))).rejects.toThrow('store is closed');
    await expect(store.appendViews(views('w1', 1))).rejects.toThrow('store is closed');
    await expect(store.markCouponUsed('w1', 'A', 1)).rejects.toThrow('store is closed');
    await expect(store.issueCoupons('w1', [{ code: 'A' }], 1)).rejects.toThrow('store is closed');
    await expect(store.counts('w1')).rejects.toThrow(new TypeError('The database connection is not open'));
    await expect(store.readEvents({ afterSeq: 0, limit: 10 })).rejects.toThrow(TypeError);
    await store.close();
  });

  it('does not keep the process alive when left open, and what it acknowledged is stored', async () => {
    const file = path.join(dir, `unclosed-${n++}.sqlite`);
    const moduleUrl = pathToFileURL(fileURLToPath(new URL('./sqlite-store.ts', import.meta.url))).href;
    const script = `const { SqliteStore } = await import(${JSON.stringify(moduleUrl)});
      const store = SqliteStore.open({ file: ${JSON.stringify(file)} });
      const r = await store.appendViews(${JSON.stringify(views('w1', 1))});
      process.stdout.write(JSON.stringify(r));`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect({ code, out, err }).toMatchObject({ code: 0, out: '{"recorded":1}' });
    const store = SqliteStore.open({ file });
    try {
      expect((await store.counts('w1')).views).toBe(1);
    } finally {
      await store.close();
    }
  });
});

describe('the analytics migration', () => {
  it('moves the search log of a database written before it into roll-ups of every grain', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'aisle-migrate-'));
    try {
      const file = path.join(dir, 'old.sqlite');
      const analytics = SQLITE_MIGRATIONS.findIndex((sql) => sql.includes('analytics_rollups'));
      const old = new Database(file);
      for (const sql of SQLITE_MIGRATIONS.slice(0, analytics)) old.exec(sql);
      old.pragma(`user_version = ${analytics}`);
      const H = 3_600_000;
      const insert = old.prepare('INSERT INTO search_log (website_id, hour, query, searches, results, no_results) VALUES (?, ?, ?, ?, ?, ?)');
      for (const [hour, query, searches, results, noResults] of [[10, 'shoe', 3, 30, 0], [30, 'shoe', 1, 6, 0], [30, 'sofa', 2, 0, 2]] as const) insert.run('w1', hour * H, query, searches, results, noResults);
      old.close();
      const store = SqliteStore.open({ file });
      try {
        const byKey = (totals: { key: string; counters: object }[]) => Object.fromEntries(totals.map((t) => [t.key, t.counters]));
        // A window of whole days and of whole 4-day blocks reads the migrated day and block rows; one hour reads the hour's row.
        expect(byKey(await store.rollupTotals('w1', 'search', { fromHour: 0, toHour: 96 * H - 1 }))).toEqual({
          shoe: expect.objectContaining({ responses: 4, results: 36, noResults: 0 }), sofa: expect.objectContaining({ responses: 2, noResults: 2 }),
        });
        expect(byKey(await store.rollupTotals('w1', 'search', { fromHour: 24 * H, toHour: 48 * H - 1 }))).toEqual({
          shoe: expect.objectContaining({ responses: 1 }), sofa: expect.objectContaining({ responses: 2 }),
        });
        expect(byKey(await store.rollupTotals('w1', 'search', { fromHour: 10 * H, toHour: 10 * H }))).toEqual({ shoe: expect.objectContaining({ responses: 3 }) });
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
