import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { isAisleError } from '../errors.js';
import { executeSearch } from '../search/execute-search.js';
import type { Product, SearchRequest } from '../types.js';
import { Catalog } from './catalog.js';

const request = (q: string, extra: Partial<SearchRequest> = {}): SearchRequest => ({ website_id: 'w', client: 'c', q, start: 0, size: 100, ...extra });
const refIds = async (catalog: Catalog, q: string, extra: Partial<SearchRequest> = {}) =>
  (await executeSearch(catalog, request(q, extra))).result.map((p) => p.refId);

describe('Catalog', () => {
  it('starts empty', () => {
    const catalog = new Catalog();
    expect(catalog.liveCount).toBe(0);
    expect(catalog.version).toBe(0);
    expect(catalog.has('a')).toBe(false);
    expect(catalog.getProduct('a')).toBeUndefined();
  });

  it('returns products exactly as given (original JSON types)', async () => {
    const catalog = new Catalog();
    const product = { refId: 'a', price: '12.50', org_price: 20, tags: ['x'], nested: { k: [1, null] }, ratings: null, ok: true };
    await catalog.upsert([product]);
    expect(catalog.getProduct('a')).toEqual(product);
    expect((await executeSearch(catalog, request(''))).result[0]).toEqual(product);
  });

  it('upserts by refId: an update keeps its position, new products are appended, the version increases', async () => {
    const catalog = new Catalog();
    const s1 = await catalog.upsert([{ refId: 'a', title: 'one' }, { refId: 'b', title: 'two' }]);
    expect(s1).toEqual({ loaded: 2, skipped: [], skippedCount: 0, catalogSize: 2 });
    const v1 = catalog.version;
    await catalog.upsert([{ refId: 'c', title: 'three' }, { refId: 'a', title: 'uno' }]);
    expect(catalog.version).toBeGreaterThan(v1);
    expect(await refIds(catalog, '')).toEqual(['a', 'b', 'c']);
    expect(catalog.getProduct('a')?.title).toBe('uno');
    expect(await refIds(catalog, 'one')).toEqual([]);
    expect(await refIds(catalog, 'uno')).toEqual(['a']);
  });

  it('keeps the last of duplicated refIds within a batch', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', v: 1 }, { refId: 'b' }, { refId: 'a', v: 2 }]);
    expect(catalog.liveCount).toBe(2);
    expect(catalog.getProduct('a')?.v).toBe(2);
  });

  it('rejects a batch with a bad record as a whole, naming its index, and changes nothing', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'keep' }]);
    const version = catalog.version;
    for (const bad of [null, 3, 'x', [], {}, { refId: 7 }, { refId: '' }]) {
      const err = await catalog.upsert([{ refId: 'new' }, bad as unknown as Product]).catch((e: unknown) => e);
      expect(isAisleError(err) && err.code === 'CATALOG_BAD_INPUT').toBe(true);
      expect((err as Error).message).toContain('product 2');
    }
    await expect(catalog.replace([{ refId: 'x' }, { title: 'no id' } as unknown as Product])).rejects.toThrow(/product 2/);
    expect(catalog.version).toBe(version);
    expect(catalog.has('new')).toBe(false);
    expect(catalog.has('keep')).toBe(true);
  });

  it("skips bad records with onError 'skip', listing their 1-based index", async () => {
    const catalog = new Catalog();
    const summary = await catalog.upsert([{ refId: 'a' }, { nope: 1 } as unknown as Product, { refId: 'b' }, null as unknown as Product], { onError: 'skip' });
    expect(summary.loaded).toBe(2);
    expect(summary.catalogSize).toBe(2);
    expect(summary.skipped.map((s) => s.line)).toEqual([2, 4]);
  });

  it('accepts async iterables and reports progress', async () => {
    const catalog = new Catalog();
    async function* feed() { for (let i = 0; i < 25_000; i++) yield { refId: `p${i}`, title: `item ${i % 7}` }; }
    const seen: number[] = [];
    const summary = await catalog.upsert(feed(), { onProgress: ({ records }) => seen.push(records) });
    expect(summary.catalogSize).toBe(25_000);
    expect(seen.at(-1)).toBe(25_000);
    expect(seen.length).toBeGreaterThan(1);
  });

  it('deletes by refId, ignoring unknown ones', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', title: 'red' }, { refId: 'b', title: 'red' }, { refId: 'c', title: 'blue' }]);
    expect(await catalog.delete(['b', 'zz'])).toEqual({ deleted: 1, catalogSize: 2 });
    expect(await refIds(catalog, 'red')).toEqual(['a']);
    const version = catalog.version;
    expect(await catalog.delete(['zz'])).toEqual({ deleted: 0, catalogSize: 2 });
    expect(catalog.version).toBe(version);
    const seen: string[] = [];
    catalog.forEachProduct((p) => seen.push(p.refId));
    expect(seen).toEqual(['a', 'c']);
  });

  it('replaces the whole catalog', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', brand: 'X' }]);
    const summary = await catalog.replace([{ refId: 'b', brand: 'Y' }, { refId: 'c', brand: 'Y' }]);
    expect(summary).toEqual({ loaded: 2, skipped: [], skippedCount: 0, catalogSize: 2 });
    expect(catalog.has('a')).toBe(false);
    const payload = await executeSearch(catalog, request('', { aggregations: ['brand'] }));
    expect(payload.aggregations?.brand).toEqual([{ key: 'Y', doc_count: 2 }]);
  });

  it('a search running during a replace sees the old or the new catalog, never a mix', async () => {
    const catalog = new Catalog();
    const gen = (tag: string, n: number) => Array.from({ length: n }, (_, i) => ({ refId: `${tag}${i}`, brand: tag, title: 'thing' }));
    await catalog.replace(gen('old', 300));
    const searches: Promise<{ total: number; brands: string[] }>[] = [];
    let replaced = false;
    async function* slowFeed() {
      for (const p of gen('new', 500)) {
        // Searches interleave with the read of the new feed and right after the swap.
        if (Number(p.refId.slice(3)) % 100 === 0) {
          searches.push(executeSearch(catalog, request('thing', { aggregations: ['brand'] }))
            .then((r) => ({ total: r.total_results, brands: r.aggregations!.brand.map((b) => b.key) })));
          await new Promise((resolve) => setImmediate(resolve));
        }
        yield p;
      }
    }
    const replace = catalog.replace(slowFeed()).then(() => { replaced = true; });
    await replace;
    expect(replaced).toBe(true);
    searches.push(executeSearch(catalog, request('thing', { aggregations: ['brand'] }))
      .then((r) => ({ total: r.total_results, brands: r.aggregations!.brand.map((b) => b.key) })));
    const results = await Promise.all(searches);
    for (const r of results) expect([{ total: 300, brands: ['old'] }, { total: 500, brands: ['new'] }]).toContainEqual(r);
    expect(results.at(-1)).toEqual({ total: 500, brands: ['new'] });
  });

  it('keeps catalogs independent', async () => {
    const a = new Catalog();
    const b = new Catalog();
    await a.upsert([{ refId: 'x', title: 'apple' }]);
    await b.upsert([{ refId: 'y', title: 'banana' }]);
    expect(await refIds(a, 'banana')).toEqual([]);
    expect(await refIds(b, 'banana')).toEqual(['y']);
    expect(a.id).not.toBe(b.id);
  });

  it('tells stock from availability (0 out; -1, missing or positive in)', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', availability: 0 }, { refId: 'b', availability: -1 }, { refId: 'c' }, { refId: 'd', availability: 3 }]);
    expect(['a', 'b', 'c', 'd', 'zz'].map((r) => catalog.isInStock(r))).toEqual([false, true, true, true, false]);
  });

  it('stores image vectors as Float32 and does not index them as text', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', image_vector: [0.5, 1, 2] }, { refId: 'b', image_vector: null }, { refId: 'c' }]);
    expect(Array.from(catalog.getImageVector('a')!)).toEqual([0.5, 1, 2]);
    expect(catalog.getImageVector('b')).toBeUndefined();
    await expect(catalog.upsert([{ refId: 'd', image_vector: 'bad' }])).rejects.toThrow(/field "image_vector" must be a non-empty list of finite numbers/);
    expect(catalog.state.vocabulary).toEqual([]);
  });

  it('keeps one image-vector dimension: the live vectors\' (refusing others), set anew once none is left', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', image_vector: [1, 0, 0] }, { refId: 'b', title: 'no vector' }]);
    await expect(catalog.upsert([{ refId: 'c', image_vector: [1, 0] }])).rejects.toThrow('catalog: product 1: product "c": field "image_vector" has 2 numbers, but the catalog\'s image vectors have 3');
    await expect(catalog.patch([{ refId: 'a', image_vector: [1, 0, 0, 0] }])).rejects.toThrow(/has 4 numbers/);
    expect(catalog.has('c')).toBe(false);
    // Once the last vector is deleted (a tombstone), the next request's first vector sets the dimension.
    await catalog.delete(['a']);
    const summary = await catalog.upsert([{ refId: 'c', image_vector: [1, 0] }, { refId: 'd', image_vector: [0, 1, 1] }], { onError: 'skip' });
    expect(summary).toMatchObject({ loaded: 1, skippedCount: 1, skipped: [{ line: 2 }] });
    expect(Array.from(catalog.getImageVector('c')!)).toEqual([1, 0]);
  });

  it('puts the hot arrays on SharedArrayBuffers', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', title: 'red shirt', price: 3, tags: ['x', 'y'] }]);
    const { index } = catalog.state;
    for (const f of index.fields) {
      if (f.numeric) for (const a of [f.numeric.byCode, f.numeric.docCodes]) if (a) expect(a.buffer).toBeInstanceOf(SharedArrayBuffer);
      for (const a of [f.text?.single, f.text?.offsets, f.text?.codes, f.text?.valueOffsets, f.text?.valueDocs]) if (a) expect(a.buffer).toBeInstanceOf(SharedArrayBuffer);
    }
    expect(index.fields.map((f) => (f.text?.single ? 'single' : f.text?.codes ? 'multi' : '-'))).toEqual(['single', 'single', 'single', 'multi']);
    expect(index.fullText.postDocs.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(index.fullText.fieldLengths.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('rejects sources of the wrong kind', async () => {
    await expect(new Catalog().upsert(42 as unknown as Product[])).rejects.toThrow(/source/);
  });

  it('reads byte streams through the feed reader', async () => {
    const catalog = new Catalog();
    const summary = await catalog.upsert(Readable.from(['{"refId":"a","title":"red"}\n{"refId":"b"}\n']));
    expect(summary.catalogSize).toBe(2);
    expect(await refIds(catalog, 'red')).toEqual(['a']);
  });
});

describe('Catalog changes on a live catalog (time-sliced builds, one queue per catalog)', () => {
  // sliceMs 0: the build pauses for a turn of the event loop at every step; syncLimit 0: even these
  // small catalogs take the time-sliced path that big ones take.
  const sliced = { sliceMs: 0, syncLimit: 0 };
  const gen = (tag: string, n: number) => Array.from({ length: n }, (_, i) => ({ refId: `${tag}${i}`, brand: tag, title: `thing ${tag} w${i % 7}`, price: i }));
  const view = async (catalog: Catalog, q: string) => {
    const r = await executeSearch(catalog, request(q, { aggregations: ['brand'], range_fields: ['price'], size: 1000 }));
    return { total: r.total_results, refIds: r.result.map((p) => p.refId), brands: r.aggregations!.brand, price: r.ranges!.price };
  };

  it('applies many concurrent upserts and deletes in order, none lost, as one or few rebuilds', async () => {
    const catalog = new Catalog({}, sliced);
    await catalog.replace(gen('base', 2000));
    const v0 = catalog.version;
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) calls.push(catalog.upsert([{ refId: `new${i}`, brand: 'new', title: `fresh item ${i}`, price: 5000 + i }]));
    calls.push(catalog.upsert([{ refId: 'base3', brand: 'upd', title: 'first' }]));
    // A delete is queued when called, an upsert once its batch is read (here: a microtask later).
    calls.push(catalog.delete(['base5', 'base6', 'nope']));
    calls.push(catalog.upsert([{ refId: 'base3', brand: 'upd', title: 'second' }, { refId: 'base5', brand: 'back', title: 'again' }]));
    const results = await Promise.all(calls);
    expect(results[41]).toEqual({ deleted: 2, catalogSize: 1998 });
    expect(results[0]).toMatchObject({ loaded: 1, catalogSize: 1999 });
    expect(results[42]).toMatchObject({ loaded: 2, catalogSize: 2039 });
    expect(catalog.liveCount).toBe(2039);
    for (let i = 0; i < 40; i++) expect(catalog.getProduct(`new${i}`)?.title).toBe(`fresh item ${i}`);
    expect(catalog.getProduct('base3')?.title).toBe('second');
    expect(catalog.has('base6')).toBe(false);
    expect(catalog.version - v0).toBeLessThan(40);
    // The index agrees with one built in one go from the same products in the same order.
    const products: Product[] = [];
    catalog.forEachProduct((p) => products.push(p));
    expect(products.at(-1)?.refId).toBe('base5');
    const fresh = new Catalog();
    await fresh.replace(products);
    for (const q of ['', 'fresh', 'thing w3', 'again second']) expect(await view(catalog, q)).toEqual(await view(fresh, q));
  });

  it('keeps answering searches during a big replace, each from the full old or the full new catalog', async () => {
    const catalog = new Catalog({}, sliced);
    await catalog.replace(gen('old', 300));
    const oldView = await view(catalog, 'thing');
    let pending = true;
    const replace = catalog.replace(gen('new', 3000)).finally(() => { pending = false; });
    const seen: { total: number; brands: string[] }[] = [];
    let answeredDuringBuild = 0;
    while (pending) {
      const r = await executeSearch(catalog, request('thing', { aggregations: ['brand'] }));
      if (pending) answeredDuringBuild++;
      seen.push({ total: r.total_results, brands: r.aggregations!.brand.map((b) => b.key) });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await replace;
    seen.push({ total: (await view(catalog, 'thing')).total, brands: ['new'] });
    expect(answeredDuringBuild).toBeGreaterThan(0);
    for (const s of seen) expect([{ total: 300, brands: ['old'] }, { total: 3000, brands: ['new'] }]).toContainEqual(s);
    expect(oldView.total).toBe(300);
    expect((await view(catalog, 'thing')).brands).toEqual([{ key: 'new', doc_count: 3000 }]);
  });

  it('a change queued behind a running build starts from that build\'s version', async () => {
    const catalog = new Catalog({}, sliced);
    // Fewer records than the reader checks between two turns: read at once, then built in slices.
    const first = catalog.replace(gen('a', 200));
    await new Promise((resolve) => setImmediate(resolve));
    expect(catalog.version).toBe(0); // still building
    const second = catalog.upsert([{ refId: 'late', title: 'late one' }]);
    const third = catalog.delete(['a0']);
    await Promise.all([first, second, third]);
    expect(catalog.liveCount).toBe(200);
    expect(catalog.has('late')).toBe(true);
    expect(catalog.has('a0')).toBe(false);
    expect(await refIds(catalog, 'late')).toEqual(['late']);
  });

  it('changes a small idle catalog within the call (visible even before the promise is awaited)', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a' }, { refId: 'b' }]);
    const deleting = catalog.delete(['a']);
    expect(catalog.has('a')).toBe(false);
    expect(await deleting).toEqual({ deleted: 1, catalogSize: 1 });
  });
});

describe('stray values in a numeric field', () => {
  it('keep the field numeric (ranges work), read as missing, and are reported in the load summary', async () => {
    const { Catalog } = await import('./catalog.js');
    const { executeSearch } = await import('../search/index.js');
    const catalog = new Catalog();
    const products = Array.from({ length: 200 }, (_, i) => ({ refId: `p${i}`, title: 'mug', price: i + 1 }));
    await catalog.upsert(products);
    const summary = await catalog.upsert([{ refId: 'odd', title: 'mug', price: 'N/A' }]);
    expect(summary.strayValues).toEqual([{ field: 'price', count: 1, refIds: ['odd'] }]);
    expect(catalog.state.index.fields.find((f) => f.name === 'price')!.kind).toBe('numeric');
    const found = await executeSearch(catalog, { website_id: 'w', client: 'c', q: '', start: 0, size: 300, range_fields: ['price'], scope: { price: { min: 100 } } } as never);
    expect(found.total_results).toBe(101);
    expect(found.ranges!.price).toEqual({ min: 100, max: 200 });
    // Many such values do make it text (a field of words, not numbers).
    const words = new Catalog();
    await words.upsert([...products.slice(0, 10), ...Array.from({ length: 5 }, (_, i) => ({ refId: `w${i}`, price: 'ask us' }))]);
    expect(words.state.index.fields.find((f) => f.name === 'price')!.kind).toBe('text');
  });

  it('are reported only for fields that searches read as numbers: never refId, nor a field pinned to text', async () => {
    const { Catalog } = await import('./catalog.js');
    const catalog = new Catalog();
    catalog.fieldTypes = { sku: { type: 'text' } };
    // A feed of numeric refIds and SKUs with one of each that is not a number (the Best Buy feed has such refIds):
    // scopes, ranges and sorts read both as text, so nothing of them is "missing for ranges".
    const products = Array.from({ length: 200 }, (_, i) => ({ refId: String(1000 + i), sku: String(5000 + i), price: i + 1 }));
    const summary = await catalog.upsert([...products, { refId: 'row250', sku: 'N/A', price: 'N/A' }]);
    expect(summary.strayValues).toEqual([{ field: 'price', count: 1, refIds: ['row250'] }]);
  });
});
