import { mkdtemp, readFile, rm, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAisleError } from '../../errors.js';
import { executeSearch } from '../../search/execute-search.js';
import { runPartial } from '../../search/run-partial.js';
import { compileSearchPlan } from '../../search/search-plan.js';
import { catalogArb, requestArb } from '../../search/__tests__/random-catalog.js';
import type { Product, SearchRequest } from '../../types.js';
import { Catalog } from '../catalog.js';
import { decodeCatalogSnapshot, loadCatalogSnapshot, saveCatalogSnapshot } from './snapshot.js';
import { liveProductList } from '../changes/tombstones.js';
import { ensureNumericOrder } from '../columns/text-column-lookups.js';
import { derivedHierarchies, hierarchyOf } from '../columns/hierarchy-column.js';
import { HIERARCHY_PRODUCTS, HIERARCHY_SETTINGS } from '../../search/__tests__/hierarchy-products.js';

let dir: string;
beforeAll(async () => { dir = await mkdtemp(path.join(tmpdir(), 'aisle-snapshot-')); });
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

async function outcome(catalog: Catalog, request: SearchRequest): Promise<unknown> {
  try {
    return await executeSearch(catalog, request);
  } catch (err) {
    return isAisleError(err) ? err.code : err;
  }
}

async function expectInvalid(promise: Promise<unknown>): Promise<void> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(isAisleError(err) && err.code === 'SNAPSHOT_INVALID').toBe(true);
}

describe('catalog snapshots', () => {
  it('round-trips: identical products, refIds, vectors and search results', async () => {
    const file = path.join(dir, 'round.aislesnap');
    await fc.assert(fc.asyncProperty(catalogArb(60), fc.array(requestArb, { minLength: 3, maxLength: 3 }), async (products, requests) => {
      const original = new Catalog({ synonyms: [['tv', 'television']] });
      await original.upsert([...products, { refId: 'vec', image_vector: [1, 2.5, -3], title: 'Télévision' }]);
      await saveCatalogSnapshot(original, file);
      const loaded = await loadCatalogSnapshot(file, { synonyms: [['tv', 'television']] });
      expect(loaded.liveCount).toBe(original.liveCount);
      const all = (c: Catalog) => { const out: Product[] = []; c.forEachProduct((p) => out.push(p)); return out; };
      // The product store travels as its parts (shapes, columns, side store): products read back as given.
      expect(all(loaded)).toEqual(all(original));
      expect(Array.from(loaded.getImageVector('vec')!)).toEqual([1, 2.5, -3]);
      for (const request of [...requests, { website_id: 'w', client: 'c', q: 'tv', start: 0 }]) {
        // Compared as the JSON the adapter would send (-0 is written as 0 either way).
        expect(JSON.stringify(await outcome(loaded, request))).toBe(JSON.stringify(await outcome(original, request)));
      }
    }), { numRuns: 40 });
  });

  it('saves the structures derived by earlier searches (numeric orders, text sort ranks) and reuses them', async () => {
    const file = path.join(dir, 'derived.aislesnap');
    const original = new Catalog();
    await original.upsert(Array.from({ length: 200 }, (_, i) => ({ refId: `p${i}`, brand: ['b', 'A', 'c'][i % 3], price: (i * 7) % 50 })));
    const body: SearchRequest = { website_id: 'w', client: 'c', q: '', start: 3, size: 5, range_fields: ['price'],
      sort_fields: [{ price: { order: 'desc', type: 'number' } }, { brand: { order: 'asc', type: 'text' } }] };
    const before = await executeSearch(original, body);
    expect(original.state.index.fields[original.state.fieldByName.get('price')!].order).toBeDefined();
    await saveCatalogSnapshot(original, file);
    const loaded = await loadCatalogSnapshot(file);
    const { fields } = loaded.state.index;
    expect(fields[loaded.state.fieldByName.get('price')!].order).toBeDefined();
    expect(fields[loaded.state.fieldByName.get('brand')!].text?.sortRank).toBeDefined();
    expect(await executeSearch(loaded, body)).toEqual(before);
  });

  it('stores the numeric order of every numeric field, equal to the one a search derives', async () => {
    const file = path.join(dir, 'orders.aislesnap');
    const original = new Catalog();
    await original.upsert(Array.from({ length: 300 }, (_, i) => ({ refId: `p${i}`, price: (i * 13) % 40, rating: i % 7 === 0 ? 'n/a' : i % 5 })));
    await saveCatalogSnapshot(original, file);
    const loaded = await loadCatalogSnapshot(file);
    const fresh = await loadCatalogSnapshot(file);
    for (const name of ['price', 'rating']) {
      const field = loaded.state.index.fields[loaded.state.fieldByName.get(name)!];
      expect(field.order).toBeDefined();
      const derived = { ...field, order: undefined };
      const state = { ...fresh.state, index: { ...fresh.state.index, fields: fresh.state.index.fields.map((f) => (f.name === name ? derived : f)) } };
      ensureNumericOrder(state, loaded.state.fieldByName.get(name)!);
      expect(Array.from(field.order!)).toEqual(Array.from(derived.order!));
    }
  });

  it('keeps working after load: upserts rebuild from the loaded products', async () => {
    const file = path.join(dir, 'live.aislesnap');
    const original = new Catalog();
    await original.upsert([{ refId: 'a', title: 'red lamp', price: '12.50' }]);
    await saveCatalogSnapshot(original, file);
    const loaded = await loadCatalogSnapshot(file);
    await loaded.upsert([{ refId: 'b', title: 'red chair', price: 3 }]);
    const r = await executeSearch(loaded, { website_id: 'w', client: 'c', q: 'red', start: 0, range_fields: ['price'] });
    expect(r.total_results).toBe(2);
    expect(r.ranges).toEqual({ price: { min: 3, max: 12.5 } });
    expect(loaded.getProduct('a')).toEqual({ refId: 'a', title: 'red lamp', price: '12.50' });
  });

  it('loads a format-2 snapshot (offsets and codes beside 32-bit single codes) into the narrow layout', async () => {
    // __tests__/format-2.aislesnap was written by the format-2 code from these products, after a text
    // sort on brand and a range on price (derived arrays saved) and with p3 and p17 deleted (tombstones).
    const brands = ['Acme', 'Borealis', 'Cobalt', 'Dune', 'Ember'];
    const products: Product[] = Array.from({ length: 40 }, (_, i) => ({
      refId: `p${i}`,
      title: `${['red', 'blue', 'green'][i % 3]} ${['mug', 'kettle', 'lamp', 'chair'][i % 4]} ${i}`,
      brand: brands[i % 5],
      ...(i % 4 === 0 ? {} : { tags: i % 3 === 0 ? ['sale', 'new'] : ['sale'] }),
      ...(i % 6 === 5 ? {} : { colour: ['red', 'blue', 'green'][i % 3] }),
      price: ((i * 7) % 50) + 0.5,
    }));
    const loaded = await loadCatalogSnapshot(fileURLToPath(new URL('./__tests__/format-2.aislesnap', import.meta.url)));
    const { index, fieldByName } = loaded.state;
    const text = (name: string) => index.fields[fieldByName.get(name)!].text!;
    expect(text('brand').single).toBeInstanceOf(Int8Array);
    expect(text('brand').offsets).toBeUndefined();
    expect(text('refId').single).toBeInstanceOf(Int8Array);
    expect(text('tags').single).toBeUndefined();
    expect(text('tags').codes).toBeInstanceOf(Uint32Array);
    expect(index.fullText.fieldLengths).toBeInstanceOf(Uint16Array);
    const built = new Catalog();
    await built.upsert(products.filter((p) => p.refId !== 'p3' && p.refId !== 'p17'));
    const requests: SearchRequest[] = [
      { website_id: 'w', client: 'c', q: 'red mug', start: 0, size: 50, aggregations: ['brand', 'tags', 'colour'], range_fields: ['price'] },
      { website_id: 'w', client: 'c', q: '', start: 0, size: 50, scope: { tags: ['new'] }, sort_fields: [{ brand: { order: 'desc', type: 'text' } }], aggregations: ['colour'] },
      { website_id: 'w', client: 'c', q: 'lamp', start: 0, size: 50, scope: { brand: ['Dune', 'Acme'] }, aggregations: ['tags'] },
    ];
    for (const request of requests) expect(await outcome(loaded, request)).toEqual(await outcome(built, request));
    // Written again, it is a current-format snapshot answering alike.
    const file = path.join(dir, 'from-format-2.aislesnap');
    await saveCatalogSnapshot(loaded, file);
    const again = await loadCatalogSnapshot(file);
    for (const request of requests) expect(await outcome(again, request)).toEqual(await outcome(built, request));
  });

  it('loads a format-4 snapshot (normalised postings, field lengths by field, a vector per doc) answering as a build does', async () => {
    // __tests__/format-4.aislesnap was written by the format-4 code from these products: the first 34
    // built, the last 6 appended (a posting tail, means moved), then p3 and p17 deleted.
    const brands = ['Acme', 'Borealis', 'Cobalt', 'Dune', 'Ember'];
    const products: Product[] = Array.from({ length: 40 }, (_, i) => ({
      refId: `p${i}`,
      title: `${['red', 'blue', 'green'][i % 3]} ${['mug', 'kettle', 'lamp', 'chair'][i % 4]} ${i}${i % 5 === 0 ? ' red red' : ''}`,
      brand: brands[i % 5],
      ...(i % 4 === 0 ? {} : { tags: i % 3 === 0 ? ['sale', 'new'] : ['sale'] }),
      ...(i % 6 === 5 ? {} : { colour: ['red', 'blue', 'green'][i % 3] }),
      price: ((i * 7) % 50) + 0.5,
      ...(i % 3 === 0 ? {} : { image_vector: [i / 4, -i / 8, 1] }),
    }));
    const live = products.filter((p) => p.refId !== 'p3' && p.refId !== 'p17');
    const loaded = await loadCatalogSnapshot(fileURLToPath(new URL('./__tests__/format-4.aislesnap', import.meta.url)));
    const built = new Catalog();
    await built.upsert(live);
    const requests: SearchRequest[] = [
      { website_id: 'w', client: 'c', q: 'red mug', start: 0, size: 50, aggregations: ['brand', 'tags', 'colour'], range_fields: ['price'] },
      { website_id: 'w', client: 'c', q: 'red', start: 0, size: 50 },
      { website_id: 'w', client: 'c', q: 'lamp', start: 0, size: 50, scope: { brand: ['Dune', 'Acme'] }, aggregations: ['tags'] },
    ];
    // The relevance scores themselves, best first (doc ids differ: the loaded catalog keeps its tombstones).
    const scores = (catalog: Catalog, request: SearchRequest) => {
      const { state } = catalog;
      return Array.from(runPartial(state.index, compileSearchPlan(state, request).plan, 0, state.index.docCount).topScores);
    };
    for (const request of requests) {
      expect(await outcome(loaded, request)).toEqual(await outcome(built, request));
      expect(scores(loaded, request)).toEqual(scores(built, request));
    }
    for (const p of live) {
      expect(loaded.getProduct(p.refId)).toEqual(p);
      expect(loaded.getImageVector(p.refId) && Array.from(loaded.getImageVector(p.refId)!)).toEqual(built.getImageVector(p.refId) && Array.from(built.getImageVector(p.refId)!));
    }
    // Written again, it is a current-format snapshot answering alike.
    const file = path.join(dir, 'from-format-4.aislesnap');
    await saveCatalogSnapshot(loaded, file);
    const again = await loadCatalogSnapshot(file);
    for (const request of requests) expect(await outcome(again, request)).toEqual(await outcome(built, request));
  });

  it('keeps the hierarchies derived on the version (format 6); a format-5 snapshot has them derived again', async () => {
    // __tests__/format-5.aislesnap was written by the format-5 code (main at 5a8fe1c) from these
    // products: the first five built, the last two appended, then b deleted; its 'sep' hierarchy had
    // been derived, which format 5 did not keep.
    const products: Product[] = [
      ...HIERARCHY_PRODUCTS,
      { refId: 'f', brand: 'Zeta', path: 'Home > Kitchen > Pans', levels: ['Home', 'Kitchen', 'Pans'], lvl0: 'Home', lvl1: 'Kitchen', lvl2: 'Pans' },
      { refId: 'g', brand: 'Acme', path: 'Toys > Cars', levels: ['Toys', 'Cars'], lvl0: 'Toys', lvl1: 'Cars' },
    ];
    const settings = HIERARCHY_SETTINGS;
    const hierarchies = settings.hierarchies!;
    const built = new Catalog();
    await built.upsert(products.filter((p) => p.refId !== 'b'));
    const requests: SearchRequest[] = Object.keys(hierarchies).flatMap((name) => [
      { website_id: 'w', client: 'c', q: '', start: 0, size: 10, hierarchical_facets: [name] },
      { website_id: 'w', client: 'c', q: '', start: 0, size: 10, hierarchical_facets: [name], scope: { [name]: ['Home > Kitchen'] }, aggregations: ['brand'] },
    ]);
    const expectAnswersAsBuilt = async (catalog: Catalog) => {
      for (const request of requests) expect(await executeSearch(catalog, request, { settings })).toEqual(await executeSearch(built, request, { settings }));
    };
    const old = await loadCatalogSnapshot(fileURLToPath(new URL('./__tests__/format-5.aislesnap', import.meta.url)));
    expect(derivedHierarchies(old.state)).toEqual([]);
    await old.deriveHierarchies(hierarchies);
    expect(derivedHierarchies(old.state)).toHaveLength(3);
    await expectAnswersAsBuilt(old);
    // Written again (format 6), the hierarchies are read back with the version, not derived.
    const file = path.join(dir, 'hierarchies.aislesnap');
    await saveCatalogSnapshot(old, file);
    const loaded = await loadCatalogSnapshot(file);
    expect(derivedHierarchies(loaded.state).map((h) => h.setting)).toEqual(Object.values(hierarchies));
    for (const { setting, tree } of derivedHierarchies(loaded.state)) expect(hierarchyOf(loaded.state, setting)).toBe(tree);
    await expectAnswersAsBuilt(loaded);
    // A loaded hierarchy is extended by the next append as a derived one is.
    const more: Product = { refId: 'h', path: 'Home > Garden > Tools', levels: ['Home', 'Garden', 'Tools'], lvl0: 'Home', lvl1: 'Garden', lvl2: 'Tools' };
    await Promise.all([loaded.upsert([more]), built.upsert([more])]);
    expect(derivedHierarchies(loaded.state)).toHaveLength(3);
    await expectAnswersAsBuilt(loaded);
  });

  it('loads a format-6 snapshot (a length slot per full-text field); a new field after it lays them out with spare slots, kept by format 7', async () => {
    // __tests__/format-6.aislesnap was written by the format-6 code (main at 2cc83f3) from these
    // products: the first six built, the last two appended (adding the full-text field notes), then p2 deleted.
    const products: Product[] = [
      { refId: 'p1', title: 'red cotton shirt', brand: 'Acme', price: 20 },
      { refId: 'p2', title: 'blue linen shirt', brand: 'Zeta', price: 35 },
      { refId: 'p3', title: 'green wool jumper', brand: 'Acme', price: 60 },
      { refId: 'p4', title: 'black leather boots', brand: 'Orbit', price: 120 },
      { refId: 'p5', title: 'white canvas shoes', brand: 'Zeta', price: 45 },
      { refId: 'p6', title: 'grey cotton socks', brand: 'Orbit', price: 8 },
      { refId: 'p7', title: 'yellow rain coat', brand: 'Acme', price: 90, notes: 'waterproof seams taped' },
      { refId: 'p8', title: 'navy wool scarf', brand: 'Zeta', price: 25, notes: 'hand knitted' },
    ];
    const loaded = await loadCatalogSnapshot(fileURLToPath(new URL('./__tests__/format-6.aislesnap', import.meta.url)));
    const fields = loaded.state.index.fullText.fieldIds.length;
    expect(loaded.state.index.fullText.lengthStride).toBe(fields);
    const built = new Catalog();
    await built.upsert(products.filter((p) => p.refId !== 'p2'));
    const requests: SearchRequest[] = [
      { website_id: 'w', client: 'c', q: 'cotton shirt', start: 0, size: 20, aggregations: ['brand'] },
      { website_id: 'w', client: 'c', q: 'wool', start: 0, size: 20 },
      { website_id: 'w', client: 'c', q: 'seams knitted', start: 0, size: 20 },
      { website_id: 'w', client: 'c', q: 'organic linen', start: 0, size: 20 },
      { website_id: 'w', client: 'c', q: 'portugal', start: 0, size: 20 },
    ];
    const expectAnswersAsBuilt = async (catalog: Catalog) => {
      for (const request of requests) expect(await outcome(catalog, request)).toEqual(await outcome(built, request));
    };
    await expectAnswersAsBuilt(loaded);
    // A full-text field no product had: no slot spare, the lengths are laid out again with some.
    const care: Product = { refId: 'p9', title: 'organic linen shirt', brand: 'Acme', price: 40, care: 'cold wash linen' };
    await Promise.all([loaded.upsert([care]), built.upsert([care])]);
    const { lengthStride } = loaded.state.index.fullText;
    expect(lengthStride).toBeGreaterThan(fields + 1);
    await expectAnswersAsBuilt(loaded);
    // The next one takes a spare slot: the same layout, in place.
    const origin: Product = { refId: 'p10', title: 'linen trousers', brand: 'Orbit', price: 55, origin: 'made in portugal' };
    const lengthsBefore = loaded.state.index.fullText.fieldLengths;
    await Promise.all([loaded.upsert([origin]), built.upsert([origin])]);
    expect(loaded.state.index.fullText.lengthStride).toBe(lengthStride);
    expect(loaded.state.index.fullText.fieldLengths.buffer).toBe(lengthsBefore.buffer);
    await expectAnswersAsBuilt(loaded);
    // Written again (format 7), the spare slots are kept: a field added after the load takes one.
    const file = path.join(dir, 'from-format-6.aislesnap');
    await saveCatalogSnapshot(loaded, file);
    const again = await loadCatalogSnapshot(file);
    expect(again.state.index.fullText.lengthStride).toBe(lengthStride);
    await expectAnswersAsBuilt(again);
    const size: Product = { refId: 'p11', title: 'wool socks', brand: 'Zeta', price: 12, size_note: 'runs small' };
    await Promise.all([again.upsert([size]), built.upsert([size])]);
    expect(again.state.index.fullText.lengthStride).toBe(lengthStride);
    requests.push({ website_id: 'w', client: 'c', q: 'small wool', start: 0, size: 20 });
    await expectAnswersAsBuilt(again);
  });

  it('writes dictionaries and a vocabulary longer than a step of the meta (written in pieces) back whole', async () => {
    const file = path.join(dir, 'long-meta.aislesnap');
    const products: Product[] = Array.from({ length: 40_000 }, (_, i) => ({ refId: `p${i}`, title: `word${i} ${i % 2 ? 'odd' : 'even'} "quoted" é😀`, price: i }));
    const original = new Catalog();
    await original.upsert(products);
    await saveCatalogSnapshot(original, file);
    const loaded = await loadCatalogSnapshot(file);
    expect(loaded.state.vocabulary).toEqual(original.state.vocabulary);
    expect(loaded.state.dictionaries.map((d) => d.values())).toEqual(original.state.dictionaries.map((d) => d.values()));
    expect(loaded.getProduct('p39999')).toEqual(products[39_999]);
    const request: SearchRequest = { website_id: 'w', client: 'c', q: 'word20001', start: 0, size: 5 };
    expect(await outcome(loaded, request)).toEqual(await outcome(original, request));
  });

  it('writes atomically: no temporary file is left behind', async () => {
    const sub = await mkdtemp(path.join(dir, 'atomic-'));
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a' }]);
    await saveCatalogSnapshot(catalog, path.join(sub, 'c.aislesnap'));
    await saveCatalogSnapshot(catalog, path.join(sub, 'c.aislesnap'));
    expect(await readdir(sub)).toEqual(['c.aislesnap']);
  });

  it('rejects missing, truncated, foreign and corrupted files with SNAPSHOT_INVALID', async () => {
    const file = path.join(dir, 'good.aislesnap');
    const catalog = new Catalog();
    await catalog.upsert(Array.from({ length: 50 }, (_, i) => ({ refId: `p${i}`, title: `item ${i}`, price: i, path: `A${i % 3} > B${i % 7}` })));
    // A hierarchy's node column is damaged with the rest (format 6 keeps it).
    hierarchyOf(catalog.state, { field: 'path', separator: '>' });
    await saveCatalogSnapshot(catalog, file);
    const bytes = await readFile(file);
    await expectInvalid(loadCatalogSnapshot(path.join(dir, 'missing.aislesnap')));
    const bad = path.join(dir, 'bad.aislesnap');
    for (const content of [bytes.subarray(0, bytes.length - 10), bytes.subarray(0, 5), Buffer.from('{"not":"a snapshot"}'), Buffer.alloc(0),
      Buffer.concat([bytes, Buffer.from([0])])]) {
      await writeFile(bad, content);
      await expectInvalid(loadCatalogSnapshot(bad));
    }
    const foreign = Buffer.from(bytes);
    foreign.write('XXXX', 8); // file identifier
    await writeFile(bad, foreign);
    await expectInvalid(loadCatalogSnapshot(bad));
    // Random byte damage must never crash the process with anything but SNAPSHOT_INVALID or a still-valid catalog.
    for (let i = 0; i < 30; i++) {
      const damaged = Buffer.from(bytes);
      for (let j = 0; j < 5; j++) damaged[12 + Math.floor(Math.random() * (damaged.length - 12))] ^= 0xff;
      await writeFile(bad, damaged);
      const err = await loadCatalogSnapshot(bad).then(() => undefined, (e: unknown) => e);
      if (err !== undefined) expect(isAisleError(err) && err.code === 'SNAPSHOT_INVALID').toBe(true);
    }
  });

  it('re-analyses a snapshot written with another text analysis (symbols were letters of words), keeping its products', async () => {
    // Written before text analysis 2: "Acme™" was the word "acmetm", "Nike™Air" "niketmair"; d is tombstoned.
    const fixture = path.join(import.meta.dirname, '__tests__', 'text-analysis-1.aislesnap');
    const loaded = await loadCatalogSnapshot(fixture);
    const ids = async (catalog: Catalog, q: string) => (await executeSearch(catalog, { website_id: 'w', client: 'c', q, start: 0 })).result.map((p) => p.refId).sort();
    expect(await ids(loaded, 'acme')).toEqual(['a', 'e']);
    expect(await ids(loaded, 'air')).toEqual(['b']);
    expect(await ids(loaded, 'servo')).toEqual(['c']);
    expect(loaded.state.vocabulary).not.toContain('acmetm');
    const live: Product[] = [];
    loaded.forEachProduct((p) => live.push(p));
    expect(live.map((p) => p.refId)).toEqual(['a', 'b', 'c', 'e']);
    expect(loaded.getProduct('a')).toEqual({ refId: 'a', title: 'Acme™ running shoe', brand: 'Acme™', price: 50 });
    // Saved again, it carries the current analysis and loads as it is.
    const file = path.join(dir, 'reanalysed.aislesnap');
    await saveCatalogSnapshot(loaded, file);
    const again = await loadCatalogSnapshot(file);
    expect(await ids(again, 'acme')).toEqual(['a', 'e']);
    expect(again.state.vocabulary).toEqual(loaded.state.vocabulary);
  });

  it('gives a snapshot of another text analysis as stored, for a reader of its products only (no index built again)', async () => {
    const fixture = path.join(import.meta.dirname, '__tests__', 'text-analysis-1.aislesnap');
    const decoded = decodeCatalogSnapshot(new Uint8Array(await readFile(fixture)));
    const stored = decoded.makeStoredState('stored');
    const rebuilt = decoded.makeState('rebuilt');
    // As stored: the old words; the live products the same as the re-analysed state's, in the same order.
    expect(stored.vocabulary).toContain('acmetm');
    expect(rebuilt.vocabulary).not.toContain('acmetm');
    const products = (state: typeof stored) => {
      const list = liveProductList(state);
      return Array.from({ length: list.length }, (_, i) => list.get(i));
    };
    expect(products(stored)).toEqual(products(rebuilt));
    expect(products(stored).map((p) => p.refId)).toEqual(['a', 'b', 'c', 'e']);
  });

  it('loads format 2 snapshots (each product as JSON), written before the product store kept its own parts', async () => {
    const fixture = path.join(import.meta.dirname, '__tests__');
    const loaded = await loadCatalogSnapshot(path.join(fixture, 'format-2-store.aislesnap'));
    const expected = JSON.parse(await readFile(path.join(fixture, 'format-2-store.products.json'), 'utf8')) as Product[];
    const all: Product[] = [];
    loaded.forEachProduct((p) => all.push(p));
    expect(JSON.stringify(all)).toBe(JSON.stringify(expected));
    expect((await executeSearch(loaded, { website_id: 'w', client: 'c', q: 'shoe', start: 0 })).result.map((p) => p.refId).sort()).toEqual(['a', 'b']);
    // Saved again, it is written in the current format and reads back the same.
    const file = path.join(dir, 'from-format-2.aislesnap');
    await saveCatalogSnapshot(loaded, file);
    const again = await loadCatalogSnapshot(file);
    expect(JSON.stringify(expected.map((p) => again.getProduct(p.refId)))).toBe(JSON.stringify(expected));
  });
});
