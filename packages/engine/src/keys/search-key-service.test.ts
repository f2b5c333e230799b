import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isAisleError } from '../errors.js';
import { MemoryStore } from '../store/memory-store.js';
import { TEST_PG_URL, TestSchemas, requirePostgres } from '../store/pg-test-env.js';
import { PostgresStore } from '../store/postgres-store.js';
import { SqliteStore } from '../store/sqlite-store.js';
import type { Store } from '../store/store.js';
import { hashSearchKey, KEY_CACHE_TTL_MS, MAX_KEYS_PER_WEBSITE, SearchKeyService, validateSearchKeyRequest } from './search-key-service.js';

const NOW = Date.UTC(2030, 0, 1);

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return isAisleError(err) ? `${err.code}: ${err.message}` : String(err);
  }
  return undefined;
}

describe('validateSearchKeyRequest', () => {
  it('accepts the documented body and refuses everything else naming the field', () => {
    expect(validateSearchKeyRequest({ actions: ['search', 'search'], expiresAt: '2031-01-01T00:00:00Z', scope: { brand: ['A'] } }, NOW))
      .toEqual({ actions: ['search'], expiresAt: Date.UTC(2031, 0, 1), scope: { brand: ['A'] } });
    expect(validateSearchKeyRequest({ actions: ['search'] }, NOW)).toEqual({ actions: ['search'], expiresAt: null, scope: null });
    // insights (click events) alone or beside search.
    expect(validateSearchKeyRequest({ actions: ['insights'] }, NOW).actions).toEqual(['insights']);
    expect(validateSearchKeyRequest({ actions: ['search', 'insights', 'insights'] }, NOW).actions).toEqual(['search', 'insights']);
    const cases: [unknown, string][] = [
      [null, '(body)'], [[], '(body)'], [{}, 'actions'], [{ actions: [] }, 'actions'], [{ actions: 'search' }, 'actions'],
      [{ actions: ['events'] }, 'actions[0]'], [{ actions: ['search'], admin: true }, 'admin'],
      [{ actions: ['search'], expiresAt: 'tomorrow' }, 'expiresAt'], [{ actions: ['search'], expiresAt: '2029-01-01T00:00:00Z' }, 'expiresAt'],
      [{ actions: ['search'], expiresAt: 5 }, 'expiresAt'], [{ actions: ['search'], scope: [] }, 'scope'],
      [{ actions: ['search'], scope: { brand: 'A' } }, 'scope.brand'], [{ actions: ['search'], scope: { price: { between: 1 } } }, 'scope.price.between'],
    ];
    for (const [body, field] of cases) {
      const message = code(() => validateSearchKeyRequest(body, NOW));
      expect(message, JSON.stringify(body)).toMatch(new RegExp(`^KEY_BAD_REQUEST: search key: ${field.replace(/[[\]().]/g, '\\$&')} `));
    }
  });
});

function serviceTests(name: string, open: () => Promise<[Store, Store]>) {
  describe(`SearchKeyService over ${name}`, () => {
    const stores: Store[] = [];
    afterEach(async () => { await Promise.all(stores.splice(0).map((s) => s.close())); });

    it('creates a key shown once, stores only its hash, lists, resolves and revokes it', async () => {
      const [a, b] = await open();
      stores.push(a, b);
      let clock = NOW;
      const one = new SearchKeyService(a, () => clock);
      const other = new SearchKeyService(b, () => clock); // a second replica over the same data
      const created = await one.create('w1', { actions: ['search'], scope: { brand: ['Acme'] }, expiresAt: '2030-02-01T00:00:00Z' });
      expect(created.key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
      expect(created).toMatchObject({ websiteId: 'w1', actions: ['search'], scope: { brand: ['Acme'] }, expiresAt: '2030-02-01T00:00:00.000Z', expired: false });
      const stored = await a.listSearchKeys('w1');
      expect(stored[0]!.keyHash).toBe(hashSearchKey(created.key));
      expect(JSON.stringify(stored)).not.toContain(created.key);
      const listed = await other.list('w1');
      const { key: _shownOnce, ...info } = created;
      expect(listed).toEqual([info]);
      // The other replica finds the key at its first use (a cache miss reads the store).
      expect((await other.resolve(created.key))?.id).toBe(created.id);
      expect(await other.resolve(`${created.key.slice(0, -1)}x`)).toBeUndefined();
      expect(await other.resolve('not a key')).toBeUndefined();
      // Revoked on the first replica: gone there at once, on the other once its cached entry expires.
      await one.revoke('w1', created.id);
      expect(await one.resolve(created.key)).toBeUndefined();
      clock += KEY_CACHE_TTL_MS;
      expect(await other.resolve(created.key)).toBeUndefined();
      await expect(one.revoke('w1', created.id)).rejects.toMatchObject({ code: 'KEY_NOT_FOUND' });
      // An id no key can have (a NUL, an unpaired surrogate) names none: PostgreSQL failed on it (503, "the store failed").
      for (const id of ['key_\u0000', 'key_\ud800']) await expect(one.revoke('w1', id)).rejects.toMatchObject({ code: 'KEY_NOT_FOUND' });
    });

    it('refuses expired keys, revokes by key, and keeps websites apart', async () => {
      const [a, b] = await open();
      stores.push(a, b);
      let clock = NOW;
      const service = new SearchKeyService(a, () => clock);
      const short = await service.create('w1', { actions: ['search'], expiresAt: new Date(NOW + 60_000).toISOString() });
      const forever = await service.create('w2', { actions: ['search'] });
      expect(await service.resolve(short.key)).toBeDefined();
      clock += 60_000;
      expect(await service.resolve(short.key)).toBeUndefined();
      expect((await service.list('w1'))[0]!.expired).toBe(true);
      await expect(service.revoke('w1', forever.key)).rejects.toMatchObject({ code: 'KEY_NOT_FOUND' });
      await expect(service.revoke('w1', forever.id)).rejects.toMatchObject({ code: 'KEY_NOT_FOUND' });
      await service.revoke('w2', forever.key);
      expect(await service.resolve(forever.key)).toBeUndefined();
      expect(await service.list('w2')).toEqual([]);
    });

    it('holds the key limit against concurrent creates, on one replica and across two', async () => {
      const [a, b] = await open();
      stores.push(a, b);
      const one = new SearchKeyService(a, () => NOW);
      const other = new SearchKeyService(b, () => NOW);
      // Filled to 10 under the limit (straight into the store: a thousand creates through the service take longer and test nothing more).
      for (let i = 0; i < MAX_KEYS_PER_WEBSITE - 10; i++) {
        await a.insertSearchKey({
          websiteId: 'w1', id: `key_fill${i}`, keyHash: hashSearchKey(`fill-${i}`), keyPrefix: 'sk_fill', actions: ['search'], scope: null, expiresAt: null, createdAt: NOW,
        }, MAX_KEYS_PER_WEBSITE);
      }
      // 30 creates at once, half through each replica: each used to count 990 keys before any of them was stored, and all 30 were.
      const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? one : other).create('w1', { actions: ['search'] })));
      const refused = results.filter((r) => r.status === 'rejected');
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
      for (const r of refused) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'LIMIT_EXCEEDED' });
      expect(await a.listSearchKeys('w1')).toHaveLength(MAX_KEYS_PER_WEBSITE);
      // Another website's keys are not counted against it.
      await one.create('w2', { actions: ['search'] });
      // A revoked key makes room again.
      await one.revoke('w1', 'key_fill0');
      await other.create('w1', { actions: ['search'] });
      await expect(one.create('w1', { actions: ['search'] })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
    });

    it('counts only live keys against the limit: expired ones make room when a create needs it', async () => {
      const [a, b] = await open();
      stores.push(a, b);
      const service = new SearchKeyService(a, () => NOW);
      // 990 live keys and 10 expired ones (a storefront rotating short-lived keys): the website is full.
      for (let i = 0; i < MAX_KEYS_PER_WEBSITE; i++) {
        await a.insertSearchKey({
          websiteId: 'w1', id: `key_full${i}`, keyHash: hashSearchKey(`full-${i}`), keyPrefix: 'sk_full', actions: ['search'], scope: null,
          expiresAt: i < 10 ? NOW - 1000 : null, createdAt: NOW - 2000,
        }, MAX_KEYS_PER_WEBSITE);
      }
      // Keys that open nothing refused a new one ("already has 1000 search keys; revoke some first").
      const created = await service.create('w1', { actions: ['search'] });
      const listed = await service.list('w1');
      expect(listed.map((k) => k.id)).toContain(created.id);
      // The expired keys gave their room; every live one is kept.
      expect(listed.filter((k) => k.expired)).toEqual([]);
      expect(listed).toHaveLength(MAX_KEYS_PER_WEBSITE - 10 + 1);
      for (let i = 0; i < 9; i++) await service.create('w1', { actions: ['search'] });
      // 1,000 live keys: the limit holds.
      await expect(service.create('w1', { actions: ['search'] })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
    });
  });
}

serviceTests('the memory store', async () => {
  const store = new MemoryStore();
  // One process's state: both "replicas" share it; closing the second one does nothing.
  const shared = new Proxy(store, { get: (t, p) => (p === 'close' ? async () => undefined : Reflect.get(t, p, t)) });
  return [store, shared];
});

serviceTests('the embedded SQLite store', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'aisle-keys-'));
  dirs.push(dir);
  const store = SqliteStore.open({ file: path.join(dir, 'aisle.sqlite') });
  // One file, one process: both "replicas" share the store; closing the second one does nothing.
  const shared = new Proxy(store, { get: (t, p) => (p === 'close' ? async () => undefined : Reflect.get(t, p, t)) });
  return [store, shared];
});
const dirs: string[] = [];
afterAll(async () => { await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))); });

const schemas = new TestSchemas();
describe('over PostgreSQL (two stores, one schema, as two replicas)', () => {
  beforeAll(requirePostgres);
  afterAll(() => schemas.dropAll());
  serviceTests('PostgreSQL', async () => {
    const schema = schemas.next();
    const a = await PostgresStore.open({ url: TEST_PG_URL, schema });
    return [a, await PostgresStore.open({ url: TEST_PG_URL, schema })];
  });
});
