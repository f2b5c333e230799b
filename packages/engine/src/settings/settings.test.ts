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
import { personalizationWeight, semanticSearchOf, type WebsiteConfig } from '../config.js';
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

  it('fills the unnamed keys of an object form with what the readers fall back to', () => {
    const full = settingsWithDefaults({ semanticSearch: { weight: 0.2 }, personalization: {}, distinct: { field: 'style' }, retailMedia: { adSets: [] } });
    expect(full.semanticSearch).toEqual({ model: 'aisle-ri', weight: 0.2 });
    expect(personalizationWeight(full.personalization)).toBe(personalizationWeight({}));
    expect(full.personalization).toEqual({ weight: personalizationWeight({}) });
    expect(semanticSearchOf(full.semanticSearch)).toEqual(semanticSearchOf({ weight: 0.2 }));
    expect(full.distinct).toEqual({ field: 'style', facetCounts: 'products' });
    expect(full.retailMedia).toEqual({ adSets: [], slotPosition: 2, placements: {} });
    expect(full.hierarchies).toEqual({});
    // A boolean stays what it says; the object form of a model keeps it.
    expect(settingsWithDefaults({ semanticSearch: true }).semanticSearch).toBe(true);
    expect(settingsWithDefaults({ semanticSearch: { model: 'mine' } }).semanticSearch).toEqual({ model: 'mine', weight: 0.5 });
    expect(() => checkWebsiteSettings(full)).not.toThrow();
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

  it('carry a version: a write on condition of a version the settings left writes nothing', async () => {
    const engine = await createEngine({ dataDir: await mkdtemp(path.join(dir, 'v-')), workers: 0, websites: [SITE] });
    try {
      const seeded = await engine.getVersionedSettings('w');
      expect(seeded.settings).toEqual(await engine.getSettings('w'));
      // The config file's settings: a version of their own, which a new config file changes.
      await engine.addWebsite({ ...SITE, settings: { synonyms: [['tv', 'television']] } });
      const reseeded = await engine.getVersionedSettings('w');
      expect(reseeded.version).not.toBe(seeded.version);
      await expect(engine.updateVersionedSettings('w', { stopWords: ['the'] }, { merge: true, ifVersion: [seeded.version] }))
        .rejects.toMatchObject({ code: 'SETTINGS_VERSION_MISMATCH', status: 412 });
      const first = await engine.updateVersionedSettings('w', { stopWords: ['the'] }, { merge: true, ifVersion: ['nope', reseeded.version] });
      expect(first.settings).toMatchObject({ stopWords: ['the'], synonyms: [['tv', 'television']] });
      expect(await engine.getVersionedSettings('w')).toEqual(first);
      const second = await engine.updateVersionedSettings('w', { stopWords: ['a'] }, { merge: true, ifVersion: [first.version] });
      expect(second.version).not.toBe(first.version);
      // The second editor read `first` too: refused, nothing written.
      await expect(engine.updateVersionedSettings('w', { stopWords: ['an'] }, { merge: true, ifVersion: [first.version] }))
        .rejects.toMatchObject({ code: 'SETTINGS_VERSION_MISMATCH' });
      await expect(engine.updateVersionedSettings('w', { stopWords: ['an'] }, { merge: true, ifVersion: [] })).rejects.toMatchObject({ code: 'SETTINGS_VERSION_MISMATCH' });
      expect(await engine.getVersionedSettings('w')).toEqual(second);
      // Without a condition: as before, last write wins.
      const third = await engine.updateVersionedSettings('w', { stopWords: ['an'] }, { merge: true });
      expect((await engine.getSettings('w')).stopWords).toEqual(['an']);
      expect(third.version).not.toBe(second.version);
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

  it('of concurrent writes on two engines from the same version, exactly one wins', async () => {
    const schema = schemas.next();
    const open = () => createEngine({ workers: 0, websites: [SITE], store: { type: 'postgres', url: TEST_PG_URL, schema } });
    const [one, two] = await Promise.all([open(), open()]);
    try {
      for (let round = 0; round < 3; round++) {
        // Both replicas at the same version (the other's last write applied by its poll), as two editors read it.
        await vi.waitFor(async () => expect((await two.getVersionedSettings('w')).version).toBe((await one.getVersionedSettings('w')).version), { timeout: 15_000, interval: 50 });
        const read = await one.getVersionedSettings('w');
        const outcomes = await Promise.allSettled([one, two].map((e, i) =>
          e.updateVersionedSettings('w', { stopWords: [`round${round}-engine${i}`] }, { merge: true, ifVersion: [read.version] })));
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        expect(won).toHaveLength(1);
        expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { code: 'SETTINGS_VERSION_MISMATCH' } });
        const winner = (won[0] as PromiseFulfilledResult<{ version: string; settings: { stopWords: string[] } }>).value;
        for (const e of [one, two]) await vi.waitFor(async () => expect(await e.getVersionedSettings('w')).toEqual(winner), { timeout: 15_000, interval: 50 });
      }
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});
