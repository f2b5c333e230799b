/**
 * Website settings at run time through the library: merge patch and defaults (pure), persistence
 * across a restart on the embedded store, and two engines sharing one PostgreSQL schema (a change
 * made through one is applied by the other without a restart).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEngine } from '../engine.js';
import type { WebsiteConfig } from '../config.js';
import type { Engine } from '../engine-api.js';
import { TEST_PG_URL, TestSchemas, requirePostgres } from '../store/pg-test-env.js';
import { DEFAULT_WEBSITE_SETTINGS, checkWebsiteSettings, mergePatch, settingsWithDefaults } from './website-settings.js';

const SITE: WebsiteConfig = {
  websiteId: 'w', client: 'c', tokens: ['t-0123456789'], hmacSecret: 's', settings: { synonyms: [['sofa', 'couch']] },
};
const PRODUCTS = [
  { refId: 'p1', title: 'Green couch', brand: 'Acme' },
  { refId: 'p2', title: 'Television stand', brand: 'Bolt' },
];

async function total(engine: Engine, q: string): Promise<number> {
  return (await engine.search({ website_id: 'w', client: 'c', q, start: 0 })).payload.total_results;
}

describe('mergePatch (RFC 7396)', () => {
  it('follows the RFC\'s examples', () => {
    // RFC 7396, appendix A.
    const cases: [unknown, unknown, unknown][] = [
      [{ a: 'b' }, { a: 'c' }, { a: 'c' }], [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }], [{ a: 'b' }, { a: null }, {}],
      [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }], [{ a: ['b'] }, { a: 'c' }, { a: 'c' }], [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
      [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }], [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
      [['a', 'b'], ['c', 'd'], ['c', 'd']], [{ a: 'b' }, ['c'], ['c']], [{ a: 'foo' }, null, null], [{ a: 'foo' }, 'bar', 'bar'],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }], [[1, 2], { a: 'b', c: null }, { a: 'b' }], [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [target, patch, result] of cases) expect(mergePatch(target, patch)).toEqual(result);
  });

  it('leaves its arguments alone and keeps a "__proto__" key a key', () => {
    const target = { a: { b: 1 } };
    const patch = JSON.parse('{"a": {"c": 2}, "__proto__": {"x": 1}}') as unknown;
    const merged = mergePatch(target, patch) as Record<string, unknown>;
    expect(target).toEqual({ a: { b: 1 } });
    expect(Object.keys(merged)).toEqual(['a', '__proto__']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('settings defaults and validation', () => {
  it('fills every default and validates them (a GET can be PUT back)', () => {
    const full = settingsWithDefaults({ synonyms: [['a', 'b']] });
    expect(full.synonyms).toEqual([['a', 'b']]);
    expect(Object.keys(full)).toEqual(expect.arrayContaining(Object.keys(DEFAULT_WEBSITE_SETTINGS)));
    expect(() => checkWebsiteSettings(full)).not.toThrow();
    expect(() => checkWebsiteSettings({ rules: [{ id: 'x', query: 1 }] })).toThrow(/^settings\.rules\[0\]\.query must be a string/);
  });
});

describe('settings in the store', () => {
  let dir: string;
  beforeAll(async () => { dir = await mkdtemp(path.join(tmpdir(), 'aisle-settings-')); });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('survive a restart on the embedded store; the config file only seeds them', async () => {
    let engine = await createEngine({ dataDir: dir, workers: 0, websites: [SITE] });
    await engine.upsertProducts('w', PRODUCTS);
    expect(await total(engine, 'sofa')).toBe(1);
    await engine.updateSettings('w', { synonyms: null, redirects: [{ queries: ['tv'], url: '/tv' }] }, { merge: true });
    expect(await total(engine, 'sofa')).toBe(0);
    await engine.close();
    engine = await createEngine({ dataDir: dir, workers: 0, websites: [SITE] });
    try {
      expect(await engine.getSettings('w')).toMatchObject({ synonyms: [], redirects: [{ queries: ['tv'], url: '/tv' }] });
      expect(await total(engine, 'sofa')).toBe(0);
      expect((await engine.search({ website_id: 'w', client: 'c', q: 'TV', start: 0 })).payload.redirects.url).toBe('/tv');
      await expect(engine.updateSettings('w', { synonyms: [[1]] })).rejects.toMatchObject({ code: 'SETTINGS_INVALID', message: 'settings.synonyms[0] must have at least 2 entries' });
      await expect(engine.updateSettings('nope', {})).rejects.toMatchObject({ code: 'WEBSITE_NOT_FOUND' });
      // Deeply nested (the library has no body reader in front of it): refused before any merge.
      let deep: unknown = 1;
      for (let i = 0; i < 100_000; i++) deep = { a: deep };
      await expect(engine.updateSettings('w', { fieldWeights: deep }, { merge: true })).rejects.toMatchObject({ code: 'SETTINGS_INVALID', message: expect.stringContaining('deeper') as string });
      expect((await engine.getSettings('w')).redirects).toEqual([{ queries: ['tv'], url: '/tv' }]);
    } finally {
      await engine.close();
    }
  });
});

describe('settings shared by two engines on PostgreSQL', () => {
  const schemas = new TestSchemas();
  beforeAll(requirePostgres);
  afterAll(() => schemas.dropAll());

  it('a change made through one engine applies on the other without a restart', async () => {
    const schema = schemas.next();
    const open = () => createEngine({ workers: 0, websites: [SITE], store: { type: 'postgres', url: TEST_PG_URL, schema } });
    const one = await open();
    const two = await open();
    try {
      for (const e of [one, two]) await e.upsertProducts('w', PRODUCTS);
      expect(await total(two, 'tv')).toBe(0);
      await one.updateSettings('w', { synonyms: [['tv', 'television']] }, { merge: true });
      expect(await total(one, 'tv')).toBe(1);
      // Polled about every second (docs/operations.md); the generous wait only covers a loaded machine.
      await vi.waitFor(async () => expect(await total(two, 'tv')).toBe(1), { timeout: 15_000, interval: 100 });
      expect(await two.getSettings('w')).toMatchObject({ synonyms: [['tv', 'television']] });
      // And back the other way, through a PATCH on the second engine.
      await two.updateSettings('w', { synonyms: null }, { merge: true });
      await vi.waitFor(async () => expect(await total(one, 'tv')).toBe(0), { timeout: 15_000, interval: 100 });
      // A third engine started later reads the stored settings, not the config file's.
      const three = await open();
      try {
        expect((await three.getSettings('w')).synonyms).toEqual([]);
      } finally {
        await three.close();
      }
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});
