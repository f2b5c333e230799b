/**
 * Semantic search through the engine: the built-in model ranks (and names itself in
 * `settings.ats_model`) only when it took part; a host's embedder plugs in through `createEngine`;
 * the model retrains after catalog changes; purchases carrying the `ats_model` are attributed to it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../engine.js';
import type { Engine } from '../engine-api.js';
import { isAisleError } from '../errors.js';
import type { Product } from '../types.js';
import type { Embedder } from './embedder.js';
import { TEXT_MODEL_ID, trainTextModel } from './text-model.js';
import { cosine } from './embedder.js';
import { Catalog } from '../catalog/catalog.js';
import { WebsiteSemantics } from './website-semantics.js';

const site = { websiteId: 'site-s', client: 'client-s', tokens: ['token-s'], hmacSecret: 'secret-s' };

// Words used together: "case" and "cover" never share a product but share their company.
const products: Product[] = [
  { refId: 'c1', title: 'Slim case for phone', brand: 'A', search_category: 'Cases' },
  { refId: 'c2', title: 'Leather case for phone back', brand: 'B', search_category: 'Cases' },
  { refId: 'v1', title: 'Flip cover for phone back', brand: 'C', search_category: 'Cases' },
  { refId: 'v2', title: 'Rugged cover for phone', brand: 'A', search_category: 'Cases' },
  { refId: 'k1', title: 'Phone charger cable', brand: 'D', search_category: 'Chargers' },
  { refId: 'k2', title: 'Fast charger for phone', brand: 'D', search_category: 'Chargers' },
  { refId: 'k3', title: 'Car charger', brand: 'E', search_category: 'Chargers' },
  { refId: 'd1', title: 'Wooden dining table', brand: 'F', search_category: 'Tables' },
  { refId: 'd2', title: 'Dining chair', brand: 'F', search_category: 'Chairs' },
];

describe('built-in text model', () => {
  it('puts words used in the same company close together', () => {
    const steps = trainTextModel(products, ['title']);
    let next = steps.next();
    while (!next.done) next = steps.next();
    const model = next.value;
    expect(model.id).toBe(TEXT_MODEL_ID);
    expect(model.embedOne('case').length).toBe(model.dimensions);
    // case ~ cover (both with phone, for, back) more than case ~ dining (no shared company)
    expect(cosine(model.embedOne('case'), model.embedOne('cover'))).toBeGreaterThan(cosine(model.embedOne('case'), model.embedOne('dining')) + 0.2);
    expect(model.embedOne('zzzz').every((x) => x === 0)).toBe(true);
    // Same catalog, same version; another catalog, another version.
    const again = trainTextModel(products, ['title']);
    let n2 = again.next();
    while (!n2.done) n2 = again.next();
    expect(n2.value.version).toBe(model.version);
  });
});

describe('WebsiteSemantics', () => {
  it('retrains when the words change, not when only prices do', async () => {
    const catalog = new Catalog();
    await catalog.upsert(products.map((p) => ({ ...p, price: 10 })));
    const semantics = new WebsiteSemantics(catalog, { retrainDelayMs: 0 });
    semantics.setBuiltInWanted(true);
    await semantics.settled();
    const first = semantics.textModel!;
    expect(semantics.trainings).toBe(1);
    await catalog.upsert([{ ...products[0], price: 12 }]);
    semantics.catalogChanged();
    await semantics.settled();
    expect(semantics.trainings).toBe(1);
    expect(semantics.textModel).toBe(first);
    await catalog.upsert([{ ...products[0], title: 'Slim case for tablet' }]);
    semantics.catalogChanged();
    await semantics.settled();
    expect(semantics.trainings).toBe(2);
    expect(semantics.textModel!.version).not.toBe(first.version);
    semantics.close();
  });
});

describe('semantic search in the engine', () => {
  const engines: Engine[] = [];
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.close();
  });
  async function open(settings: Record<string, unknown>, embedders?: Embedder[], pooled = false): Promise<Engine> {
    const engine = await createEngine({
      workers: pooled ? 1 : 0, poolThreshold: pooled ? 0 : undefined, semanticRetrainDelayMs: 0, embedders, websites: [{ ...site, settings }],
    });
    engines.push(engine);
    await engine.upsertProducts(site.websiteId, products);
    return engine;
  }
  const search = (engine: Engine, body: Record<string, unknown>) =>
    engine.search({ website_id: site.websiteId, client: site.client, start: 0, q: '', ...body });

  it('names the built-in model and its version only when it ranked the results', async () => {
    const engine = await open({ semanticSearch: true });
    const model = await engine.semanticModel(site.websiteId);
    expect(model?.id).toBe(TEXT_MODEL_ID);
    const label = `${model!.id}@${model!.version}`;
    const ranked = await search(engine, { q: 'phone', aggregations: ['brand'] });
    expect(ranked.settings).toEqual({ ats_model: label, ranked_by: ['semantic'] });
    // Same set, totals and facets as without semantic search.
    const plainEngine = await open({});
    const plain = await search(plainEngine, { q: 'phone', aggregations: ['brand'] });
    expect(ranked.payload.total_results).toBe(plain.payload.total_results);
    expect(ranked.payload.aggregations).toEqual(plain.payload.aggregations);
    expect(ranked.payload.result.map((p) => p.refId).sort()).toEqual(plain.payload.result.map((p) => p.refId).sort());
    expect(plain.settings).toBeUndefined();
    // Not ranked by the model: browsing (no words), explicit sort, one result, no result, unknown words only.
    expect((await search(engine, { q: '' })).settings).toBeUndefined();
    expect((await search(engine, { q: 'phone', sort_fields: [{ brand: { order: 'asc', type: 'text' } }] })).settings).toBeUndefined();
    expect((await search(engine, { q: 'wooden' })).settings).toBeUndefined();
    expect((await search(engine, { q: 'nothinglikethis' })).settings).toBeUndefined();
    // Weight 0: the model takes no part.
    const off = await open({ semanticSearch: { weight: 0 } });
    await off.semanticModel(site.websiteId);
    expect((await search(off, { q: 'phone' })).settings).toBeUndefined();
  });

  it('ranks the same when the match fans out over the worker pool', async () => {
    const inline = await open({ semanticSearch: true });
    const pooled = await open({ semanticSearch: true }, undefined, true);
    await inline.semanticModel(site.websiteId);
    await pooled.semanticModel(site.websiteId);
    for (const q of ['phone', 'case phone', 'charger', 'dining']) {
      const body = { q, aggregations: ['search_category'] };
      // Two answers differ only in their query_id (unique per response).
      expect({ ...(await search(pooled, body)), query_id: '' }).toEqual({ ...(await search(inline, body)), query_id: '' });
    }
  });

  it('retrains after a catalog change, with a new version', async () => {
    const engine = await open({ semanticSearch: { model: TEXT_MODEL_ID, weight: 0.5 } });
    const before = await engine.semanticModel(site.websiteId);
    await engine.upsertProducts(site.websiteId, [{ refId: 'n1', title: 'Phone stand for desk' }, { refId: 'n2', title: 'Desk lamp' }]);
    const after = await engine.semanticModel(site.websiteId);
    expect(after?.version).not.toBe(before?.version);
    expect((await search(engine, { q: 'phone' })).settings?.ats_model).toBe(`${TEXT_MODEL_ID}@${after!.version}`);
    // Back to the same catalog: back to the same model version (a fingerprint of what it learnt).
    await engine.deleteProducts(site.websiteId, ['n1', 'n2']);
    expect((await engine.semanticModel(site.websiteId))?.version).toBe(before?.version);
  });

  it('uses an embedder given to createEngine: its similarities reorder the results', async () => {
    const calls: string[][] = [];
    // A toy model with two axes: the query "phone" and rugged products on one, everything else on the other.
    const toy: Embedder = {
      id: 'toy', version: '7', dimensions: 2,
      async embed(texts) {
        calls.push([...texts]);
        return texts.map((t) => (t === 'phone' || /rugged/i.test(t) ? Float32Array.of(1, 0) : Float32Array.of(0, 1)));
      },
    };
    const plain = await search(await open({}), { q: 'phone' });
    expect(plain.payload.result[0].refId).not.toBe('v2');
    const engine = await open({ semanticSearch: { model: 'toy', weight: 2 } }, [toy]);
    const ranked = await search(engine, { q: 'phone' });
    expect(ranked.settings).toEqual({ ats_model: 'toy@7', ranked_by: ['semantic'] });
    expect(ranked.payload.result[0].refId).toBe('v2');
    expect(ranked.payload.total_results).toBe(plain.payload.total_results);
    // One batch per search: the query first, then the product texts not cached yet.
    expect(calls[0][0]).toBe('phone');
    expect(calls[0].length).toBe(1 + plain.payload.total_results);
    await search(engine, { q: 'phone' });
    expect(calls[1]).toEqual(['phone']);
  });

  it('follows settings changed at run time: turned on, pointed at a host embedder, turned off', async () => {
    const toy: Embedder = { id: 'toy', version: '1', dimensions: 1, embed: (texts) => texts.map(() => Float32Array.of(1)) };
    const engine = await open({}, [toy]);
    expect((await search(engine, { q: 'phone' })).settings).toBeUndefined();
    await engine.updateSettings(site.websiteId, { semanticSearch: true }, { merge: true });
    const model = await engine.semanticModel(site.websiteId);
    expect((await search(engine, { q: 'phone' })).settings).toEqual({ ats_model: `${model!.id}@${model!.version}`, ranked_by: ['semantic'] });
    await engine.updateSettings(site.websiteId, { semanticSearch: { model: 'toy' } }, { merge: true });
    expect((await search(engine, { q: 'phone' })).settings).toEqual({ ats_model: 'toy@1', ranked_by: ['semantic'] });
    await expect(engine.updateSettings(site.websiteId, { semanticSearch: { model: 'nope' } }, { merge: true })).rejects.toSatisfy(
      (e: unknown) => isAisleError(e) && e.code === 'SETTINGS_INVALID' && /semanticSearch\.model names no known model \(known: aisle-ri, toy\)/.test(e.message));
    await engine.updateSettings(site.websiteId, { semanticSearch: false }, { merge: true });
    expect((await search(engine, { q: 'phone' })).settings).toBeUndefined();
  });

  it('refuses a model it does not know, and bad settings, naming the key', async () => {
    const bad = async (settings: unknown, key: string) => {
      await expect(createEngine({ workers: 0, websites: [{ ...site, settings } as never] })).rejects.toSatisfy(
        (e: unknown) => isAisleError(e) && e.code === 'CONFIG_INVALID' && (e.details as { key: string }).key === key);
    };
    await bad({ semanticSearch: { model: 'nope' } }, 'websites[0].settings.semanticSearch.model');
    await bad({ semanticSearch: { weight: -1 } }, 'websites[0].settings.semanticSearch.weight');
    await bad({ semanticSearch: { weight: 0.2, extra: 1 } }, 'websites[0].settings.semanticSearch.extra');
    await bad({ semanticSearch: 'yes' }, 'websites[0].settings.semanticSearch');
    await bad({ personalization: { weight: 'x' } }, 'websites[0].settings.personalization.weight');
    await bad({ personalization: 1 }, 'websites[0].settings.personalization');
    await bad({ personalization: { weight: 1e9 } }, 'websites[0].settings.personalization.weight');
    await bad({ semanticSearch: { weight: Number.POSITIVE_INFINITY } }, 'websites[0].settings.semanticSearch.weight');
    await expect(createEngine({ workers: 0, embedders: [{ id: TEXT_MODEL_ID, version: '1', dimensions: 2, embed: () => [] }] })).rejects.toSatisfy(
      (e: unknown) => isAisleError(e) && (e.details as { key: string }).key === 'embedders[0].id');
    await expect(createEngine({ workers: 0, embedders: [{ id: 'x', version: '1', dimensions: 0, embed: () => [] }] })).rejects.toSatisfy(
      (e: unknown) => isAisleError(e) && (e.details as { key: string }).key === 'embedders[0].dimensions');
  });

  it('answers in the plain order and reports it when an embedder fails or breaks its contract', async () => {
    const failures: { task: string; message: string }[] = [];
    const plain = await search(await open({}), { q: 'phone' });
    const broken: Embedder = { id: 'broken', version: '1', dimensions: 4, embed: (texts) => texts.map(() => new Float32Array(3)) };
    const down: Embedder = { id: 'down', version: '1', dimensions: 4, embed: async () => { throw new Error('model service unreachable'); } };
    const engine = await createEngine({
      workers: 0, embedders: [broken, down], logger: { error: () => undefined, warn: () => undefined, info: () => undefined }, onError: (err, f) => failures.push({ task: f.task, message: (err as Error).message }),
      websites: [{ ...site, settings: { semanticSearch: { model: 'broken' } } }, { ...site, websiteId: 'site-t', client: 'client-t', tokens: ['token-t'], settings: { semanticSearch: { model: 'down' } } }],
    });
    engines.push(engine);
    await engine.upsertProducts(site.websiteId, products);
    await engine.upsertProducts('site-t', products);
    const a = await search(engine, { q: 'phone' });
    const b = await engine.search({ website_id: 'site-t', client: 'client-t', start: 0, q: 'phone' });
    for (const r of [a, b]) {
      expect(r.settings).toBeUndefined();
      expect(r.payload).toEqual(plain.payload);
    }
    expect(failures).toEqual([
      { task: 'semantic-embedding', message: expect.stringMatching(/broken.*Float32Array of 4/) },
      { task: 'semantic-embedding', message: 'model service unreachable' },
    ]);
  });

  it('attributes purchases carrying the ats_model to the model, end to end', async () => {
    // The shop sells in EUR, as its purchases say.
    const engine = await open({ semanticSearch: true, currency: 'EUR' });
    await engine.semanticModel(site.websiteId);
    const response = await search(engine, { q: 'phone' });
    const atsModel = response.settings!.ats_model;
    const [first, second] = response.payload.result;
    await engine.recordPurchases(site.websiteId, {
      customerId: '0f8fad5b-d9cb-469f-a165-70867728950e', sessionId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      events: [{ currentUrl: 'https://shop.example/checkout', eventTime: '2026-11-20T10:00:00Z', orderId: 'o-sem-1', currencyCode: 'EUR',
        products: [{ refId: first.refId, quantity: 2, price: 10, atsModel }, { refId: second.refId, quantity: 1, price: 5 }] }],
    });
    const report = await engine.attributionReport(site.websiteId);
    expect(report.byAtsModel).toEqual([{ key: atsModel, revenue: 20, orders: 1, units: 2 }]);
  });
});
