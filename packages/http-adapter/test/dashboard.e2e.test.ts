/**
 * The dashboard in headless Chromium against the real server (port 0, the demo website in a temporary
 * data directory, embedded store, seeded with the demo's history and traffic as `aisle serve` seeds it):
 * type a query, tick a facet, set a range, sort, page, open a product, find, edit and delete a product in
 * the catalog browser, open the insights over a date range — and compare what the page shows with the
 * API's own answers. Every request the page makes must be documented in docs/openapi.json. Screenshots go to
 * test-artifacts/dashboard/ (gitignored); with AISLE_UPDATE_SCREENSHOT=1 the search page is also
 * written to docs/dashboard.png.
 *
 * Needs Chromium at /usr/bin/chromium (or AISLE_CHROMIUM): `apt-get install chromium`. Without it the
 * browser tests are skipped with that message; the HTTP checks of the dashboard still run.
 */
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Engine, createEngine } from '@aisle/engine';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DashboardConfig } from '../src/dashboard-config.js';
import { DEFAULT_DASHBOARD_DIR } from '../src/dashboard.js';
import { demoCustomers, demoEngineOptions, demoIdentity, ensureDemoSearchKey, seedDemo, type DemoIdentity } from '../src/demo.js';
import { createServer, type AisleServer } from '../src/server.js';
import { expectDocumented } from './helpers.js';

const CHROMIUM = process.env.AISLE_CHROMIUM ?? '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const ARTIFACTS = path.join(REPO, 'test-artifacts', 'dashboard');
if (!HAS_CHROMIUM) {
  process.stderr.write(`dashboard browser tests skipped: no Chromium at ${CHROMIUM}; install it with "apt-get install chromium" (or set AISLE_CHROMIUM)\n`);
}

type SearchAnswer = {
  payload: { result: { refId: string; title?: string; brand?: string; price?: number; image_url?: string }[]; total_results: number; aggregations?: Record<string, { key: string; doc_count: number }[]> };
};

let tmp: string;
let identity: DemoIdentity;
let engine: Engine;
let app: AisleServer;
let searchKey: string;
let customers: string[];

/** POST /v1.4/search with the demo's search key, as the page does. */
async function apiSearch(body: Record<string, unknown>): Promise<SearchAnswer> {
  const res = await fetch(`${app.url}/v1.4/search`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${searchKey}` },
    body: JSON.stringify({ website_id: identity.websiteId, client: identity.client, start: 0, size: 20, ...body }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as SearchAnswer;
}

beforeAll(async () => {
  if (!existsSync(path.join(DEFAULT_DASHBOARD_DIR, 'index.html'))) {
    execFileSync(process.execPath, [path.join(REPO, 'packages/http-adapter/scripts/build-dashboard.mjs')], { stdio: 'inherit' });
  }
  tmp = mkdtempSync(path.join(os.tmpdir(), 'aisle-dashboard-'));
  identity = demoIdentity(tmp, 600);
  engine = await createEngine({ ...demoEngineOptions(tmp, identity), workers: 0 });
  await seedDemo(engine, identity);
  searchKey = await ensureDemoSearchKey(engine, identity, tmp);
  customers = demoCustomers(identity);
  app = await createServer({
    engine, adminTokens: [identity.adminToken], port: 0, host: '127.0.0.1', logger: false,
    dashboard: { searchKeys: { [identity.websiteId]: searchKey }, demoCustomers: { [identity.websiteId]: customers } },
  });
});

afterAll(async () => {
  await app?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('dashboard over HTTP', () => {
  it('serves the page, its assets and its config; nothing else from the folder', async () => {
    const page = await fetch(`${app.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    // No CDN: every script and stylesheet comes from this server.
    expect(html).not.toMatch(/(src|href)="https?:/);
    const plain = await fetch(`${app.url}/dashboard/app.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(plain.headers.get('content-encoding')).toBeNull();
    const script = await plain.text();
    // A browser that accepts gzip gets the precompressed copy of the same bytes.
    const zipped = await new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
      http.get(`${app.url}/dashboard/app.js`, { headers: { 'accept-encoding': 'gzip, deflate' } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c)).on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(parts) })).on('error', reject);
      }).on('error', reject);
    });
    expect(zipped.encoding).toBe('gzip');
    expect(gunzipSync(zipped.body).toString('utf8')).toBe(script);
    expect(zipped.body.length).toBeLessThan(script.length / 2);
    // The configuration is documented (its schema in the OpenAPI document) and holds what the demo passed.
    const config = (await expectDocumented(await fetch(`${app.url}/dashboard/config.json`), '/dashboard/config.json', 'GET')) as DashboardConfig;
    expect(config.websites).toEqual([expect.objectContaining({
      websiteId: 'demo', client: 'demo', searchKey, demoCustomers: customers, displayFields: { title: 'title', price: 'price', image: 'image_url' },
    })]);
    expect(config.recommendMethods).toHaveLength(17);
    const text = JSON.stringify(config);
    expect(text).not.toContain(identity.adminToken);
    expect(text).not.toContain(identity.token);
    for (const bad of ['/dashboard/..%2Fpackage.json', '/dashboard/nope.js', '/dashboard/.env']) expect((await fetch(`${app.url}${bad}`)).status, bad).toBe(404);
  });

  it('lists as customer methods exactly those the server refuses without a customer id', async () => {
    const config = (await (await fetch(`${app.url}/dashboard/config.json`)).json()) as DashboardConfig;
    const refId = (await apiSearch({ q: '', size: 1 })).payload.result[0]!.refId;
    const product = `productRef=${encodeURIComponent(refId)}&items%5B0%5D=${encodeURIComponent(refId)}`;
    expect(config.customerMethods.length).toBeGreaterThan(0);
    for (const method of config.recommendMethods) {
      const url = `${app.url}/1.0/ClientRecom/demo/${method}?${product}&count=6`;
      const without = await fetch(url);
      // A customer method without a customer is refused, naming the parameter; every other method answers with the product alone.
      expect(without.status, method).toBe(config.customerMethods.includes(method) ? 400 : 200);
      if (without.status === 400) expect(await without.text(), method).toContain('customerId');
      expect((await fetch(`${url}&customerId=${customers[0]}`)).status, method).toBe(200);
    }
  });

  it('offers the demo\'s busiest shoppers: customers with a viewing history', async () => {
    expect(customers).toHaveLength(3);
    for (const customerId of customers) {
      const answer = (await (await fetch(`${app.url}/1.0/ClientRecom/demo/HistoricViewed?customerId=${customerId}&count=6`)).json()) as { payload: string[] };
      expect(answer.payload.length, customerId).toBeGreaterThan(0);
    }
  });

  it('is off with dashboard: false', async () => {
    const off = await createServer({ engine, port: 0, host: '127.0.0.1', logger: false, dashboard: false, closeEngine: false, metrics: false });
    try {
      expect((await fetch(`${off.url}/`)).status).toBe(404);
      expect((await fetch(`${off.url}/dashboard/config.json`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});

describe.skipIf(!HAS_CHROMIUM)('dashboard in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  /** Every API call of the page (fetch and XHR; the page's own files are not API calls): method and URL. */
  const apiCalls: { method: string; url: URL }[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('request', (req) => {
      if (req.resourceType() === 'fetch' || req.resourceType() === 'xhr') apiCalls.push({ method: req.method(), url: new URL(req.url()) });
    });
    // Offline: the page may reach nothing but this server.
    await page.route((url) => !url.href.startsWith(app.url), (route) => route.abort());
    await page.goto(`${app.url}/`);
  });
  afterAll(async () => {
    await browser?.close();
  });

  const shown = async () => ({
    titles: await page.locator('.hit h3').allInnerTexts(),
    stats: await page.locator('#stats').innerText(),
  });
  const brandLabels = () => page.locator('#facets .ais-Panel').first().getByRole('checkbox')
    .evaluateAll((boxes) => boxes.map((b) => b.closest('label')!.textContent!.trim()));
  const waitForStats = (total: number) => page.locator('#stats').filter({ hasText: new RegExp(`^${total.toLocaleString('en')} results? found`) }).waitFor();

  it('searches: results and facet counts as the API answers them', async () => {
    expect(await page.getByLabel('Search key').inputValue()).toBe(searchKey);
    await page.getByRole('searchbox', { name: 'Search', exact: true }).fill('shirt');
    const api = await apiSearch({ q: 'shirt', aggregations: ['brand', 'search_category'], range_fields: ['price'] });
    await waitForStats(api.payload.total_results);
    expect((await shown()).titles).toEqual(api.payload.result.map((p) => p.title));
    expect(await brandLabels()).toEqual(api.payload.aggregations!.brand!.slice(0, 8).map((b) => `${b.key} (${b.doc_count})`));
    // Highlighting: the words aisle marks in the first title are the ones the page marks.
    const marked = await apiSearch({ q: 'shirt', size: 1, highlight: true }) as SearchAnswer & { payload: { result: { _highlight?: Record<string, string> }[] } };
    const words = [...(marked.payload.result[0]!._highlight?.title ?? '').matchAll(/<em>(.*?)<\/em>/g)].map((m) => m[1]);
    expect(words.length).toBeGreaterThan(0);
    expect(await page.locator('.hit h3').first().locator('mark').allInnerTexts()).toEqual(words);
    await page.screenshot({ path: path.join(ARTIFACTS, '1-search.png') });
  });

  it('ticks a facet, sets a price range, sorts and pages, as the API filters them', async () => {
    // Every product (category browsing), so that several brands are listed.
    const q = '';
    await page.getByRole('searchbox', { name: 'Search', exact: true }).fill(q);
    const browse = await apiSearch({ q, aggregations: ['brand'] });
    await waitForStats(browse.payload.total_results);
    const first = browse.payload.aggregations!.brand![0]!;
    await page.getByRole('checkbox', { name: `${first.key} (${first.doc_count})` }).check();
    const ticked = await apiSearch({ q, scope: { brand: [first.key] }, aggregations: ['brand'], disjunctive_facets: ['brand'] });
    await waitForStats(ticked.payload.total_results);
    expect((await shown()).titles).toEqual(ticked.payload.result.map((p) => p.title));
    // Disjunctive: the sibling brands stay listed with the counts they would add.
    expect(ticked.payload.aggregations!.brand!.length).toBeGreaterThan(1);
    await expect.poll(() => brandLabels()).toEqual(ticked.payload.aggregations!.brand!.slice(0, 8).map((b) => `${b.key} (${b.doc_count})`));
    await page.screenshot({ path: path.join(ARTIFACTS, '2-facet.png') });

    // A range inside the one shown (InstantSearch ignores bounds outside it) and a sort.
    const range = (await apiSearch({ q, scope: { brand: [first.key] }, range_fields: ['price'] })) as SearchAnswer & { payload: { ranges: { price: { min: number; max: number } } } };
    const lo = Math.ceil(range.payload.ranges.price.min) + 1;
    const hi = Math.floor(range.payload.ranges.price.max) - 1;
    await page.locator('.ais-RangeInput-input--min').fill(String(lo));
    await page.locator('.ais-RangeInput-input--max').fill(String(hi));
    await page.locator('.ais-RangeInput-submit').click();
    await page.locator('.ais-SortBy-select').selectOption({ label: 'price ascending' });
    const sorted = await apiSearch({ q, scope: { brand: [first.key], price: { min: lo, max: hi } }, sort_fields: [{ price: { order: 'asc', type: 'number' } }] });
    await waitForStats(sorted.payload.total_results);
    await expect.poll(async () => (await shown()).titles).toEqual(sorted.payload.result.map((p) => p.title));

    // Back to every product, page 2.
    await page.getByRole('checkbox', { name: new RegExp(`^${first.key} \\(`) }).uncheck();
    await page.locator('.ais-RangeInput-input--min').fill('');
    await page.locator('.ais-RangeInput-input--max').fill('');
    await page.locator('.ais-RangeInput-submit').click();
    const all = await apiSearch({ q: '', sort_fields: [{ price: { order: 'asc', type: 'number' } }], start: 20 });
    await waitForStats(all.payload.total_results);
    await page.locator('.ais-Pagination-item--page').filter({ hasText: /^2$/ }).click();
    await expect.poll(async () => (await shown()).titles).toEqual(all.payload.result.map((p) => p.title));
    await page.screenshot({ path: path.join(ARTIFACTS, '3-sorted-page-2.png') });
  });

  it('opens the category menu and searches the brand list, as the API answers them', async () => {
    await page.getByRole('searchbox', { name: 'Search', exact: true }).fill('');
    type Node = { value: string; path: string; count: number; children?: Node[] };
    const menuLabels = () => page.locator('.ais-HierarchicalMenu-link').evaluateAll((links) => links.map((l) =>
      `${l.querySelector('.ais-HierarchicalMenu-label')!.textContent!.trim()} ${l.querySelector('.ais-HierarchicalMenu-count')!.textContent!.trim()}`));
    const top = (await apiSearch({ q: '', hierarchical_facets: ['categories'] }) as SearchAnswer & { payload: { hierarchical_aggregations: { categories: Node[] } } }).payload.hierarchical_aggregations.categories;
    await expect.poll(menuLabels).toEqual(top.slice(0, 10).map((n) => `${n.value} ${n.count.toLocaleString('en')}`));
    // Open the first department: its groups show beneath it, the results are the department's.
    await page.locator('.ais-HierarchicalMenu-link').first().click();
    const opened = (await apiSearch({ q: '', hierarchical_facets: ['categories'], scope: { categories: [top[0]!.path] } })) as SearchAnswer & { payload: { hierarchical_aggregations: { categories: Node[] } } };
    await waitForStats(opened.payload.total_results);
    const tree = opened.payload.hierarchical_aggregations.categories;
    const expected = tree.slice(0, 10).flatMap((n) => [`${n.value} ${n.count.toLocaleString('en')}`, ...(n.children ?? []).slice(0, 10).map((c) => `${c.value} ${c.count.toLocaleString('en')}`)]);
    await expect.poll(menuLabels).toEqual(expected);
    // The brand list is searchable: its values come from facet_search under the opened department.
    const brand = opened.payload.result[0]!.brand!;
    const typed = brand.slice(0, 3);
    await page.getByPlaceholder('Search brand').fill(typed);
    const found = (await apiSearch({ q: '', scope: { categories: [top[0]!.path] }, facet_search: { field: 'brand', q: typed } })) as SearchAnswer & { payload: { facet_hits: { value: string; count: number }[] } };
    expect(found.payload.facet_hits.map((h) => h.value)).toContain(brand);
    await expect.poll(() => brandLabels()).toEqual(found.payload.facet_hits.slice(0, 8).map((h) => `${h.value} (${h.count})`));
    await page.screenshot({ path: path.join(ARTIFACTS, '2b-categories-brand-search.png') });
    // Back: the search box of the list cleared, the department closed.
    await page.getByPlaceholder('Search brand').fill('');
    await page.locator('.ais-HierarchicalMenu-link').first().click();
    await waitForStats((await apiSearch({ q: '' })).payload.total_results);
  });

  /** The catalog records of refIds, by refId, as the API answers a search scoped to them. */
  const recordsOf = async (refIds: string[]) => {
    const unique = [...new Set(refIds)];
    const answer = await apiSearch({ q: '', size: unique.length, scope: { refId: unique }, distinct: false });
    return new Map(answer.payload.result.map((p) => [p.refId, p]));
  };
  const recommendApi = async (method: string, refId: string, customerId?: string) => {
    const q = new URLSearchParams({ productRef: refId, 'items[0]': refId, count: '6', ...(customerId ? { customerId } : {}) });
    return (await (await fetch(`${app.url}/1.0/ClientRecom/demo/${method}?${q}`)).json()) as { payload: string[]; slots: { tacticLabel: string }[] };
  };
  /** Every answer of 400 or more, failed request and console error while `action` runs. */
  const failuresDuring = async (action: () => Promise<void>) => {
    const failures: string[] = [];
    const onResponse = (res: { status(): number; url(): string }) => { if (res.status() >= 400) failures.push(`${res.status()} ${res.url()}`); };
    const onFailed = (req: { url(): string }) => failures.push(`failed ${req.url()}`);
    const onConsole = (msg: { type(): string; text(): string }) => { if (msg.type() === 'error') failures.push(`console: ${msg.text()}`); };
    page.on('response', onResponse);
    page.on('requestfailed', onFailed);
    page.on('console', onConsole);
    try {
      await action();
    } finally {
      page.off('response', onResponse);
      page.off('requestfailed', onFailed);
      page.off('console', onConsole);
    }
    return failures;
  };
  const productLoaded = async () => {
    await expect.poll(() => page.locator('#view-product .loading').count()).toBe(0);
  };
  /** The refIds and the item texts a method's card shows. */
  const cardItems = async (method: string) => {
    const card = page.getByRole('region', { name: method, exact: true });
    return {
      refs: await card.locator('li .open').evaluateAll((buttons) => buttons.map((b) => (b as HTMLElement).dataset.ref!)),
      titles: await card.locator('li .open').allInnerTexts(),
      tactics: await card.locator('li .tactic').allInnerTexts(),
    };
  };

  /** A method's card shows the API's answer: its refIds, in order, by their catalog titles, with their tactics. */
  const expectCardAsApi = async (method: string, refId: string, customerId?: string) => {
    const api = await recommendApi(method, refId, customerId);
    const records = await recordsOf(api.payload);
    const shown = await cardItems(method);
    expect(shown.refs, method).toEqual(api.payload);
    expect(shown.titles, method).toEqual(api.payload.map((ref) => records.get(ref)!.title));
    expect(shown.tactics, method).toEqual(api.slots.map((s) => s.tacticLabel));
  };

  it('opens a product: every method with each item\'s title and tactic, and bundles, with no failing request', async () => {
    const config = (await (await fetch(`${app.url}/dashboard/config.json`)).json()) as DashboardConfig;
    const refId = (await page.locator('.hit').first().getAttribute('data-ref'))!;
    const failures = await failuresDuring(async () => {
      await page.locator('button.open').first().click();
      // Opening a product from the results sends a click on it (insights middleware → POST /3.0/events/clicks, 202).
      await expect.poll(async () => /aisle_http_requests_total\{[^}]*route="\/3\.0\/events\/clicks"[^}]*status="202"/
        .test(await (await fetch(`${app.url}/metrics`)).text())).toBe(true);
      expect(await page.getByRole('tab', { name: 'Product' }).getAttribute('aria-selected')).toBe('true');
      await productLoaded();
    });
    expect(failures).toEqual([]);
    expect(await page.locator('.method h3').allInnerTexts()).toEqual(config.recommendMethods);
    const self = await recordsOf([refId]);
    expect(await page.locator('.product-card h2').innerText()).toBe(self.get(refId)!.title);
    for (const method of ['ProductDetail', 'ViewedTogether', 'PopularItems', 'BoughtTogether']) await expectCardAsApi(method, refId);
    expect((await cardItems('PopularItems')).titles.length).toBeGreaterThan(0);
    // An item opens by its title: the accessible name of its button.
    const popular = (await cardItems('PopularItems')).titles[0]!;
    await expect.poll(() => page.getByRole('button', { name: popular, exact: true }).count()).toBeGreaterThan(0);
    // The customer methods were not called: their cards ask for a customer id.
    for (const method of config.customerMethods) {
      await expect.poll(() => page.getByRole('region', { name: method, exact: true }).innerText()).toContain('Needs a customer id');
    }
    const bundles = (await (await fetch(`${app.url}/1.0/ClientRecom/demo/bundle`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ product_ref_ids: [refId], setCount: 3, count: 3 }),
    })).json()) as { payload: string[][] };
    const bundleRecords = await recordsOf(bundles.payload.flat());
    const bundleTitles = await page.locator('.bundles li').evaluateAll((rows) => rows.map((li) => [...li.querySelectorAll('.open')].map((b) => b.textContent)));
    expect(bundleTitles).toEqual(bundles.payload.map((b) => b.map((ref) => bundleRecords.get(ref)!.title)));
    await page.screenshot({ path: path.join(ARTIFACTS, '4-product.png'), fullPage: true });
  });

  it('asks for a customer id and shows the customer methods for a demo customer, with no failing request', async () => {
    const config = (await (await fetch(`${app.url}/dashboard/config.json`)).json()) as DashboardConfig;
    const refId = await page.getByLabel('Product refId').inputValue();
    expect(await page.getByLabel('Customer id').inputValue()).toBe('');
    const failures = await failuresDuring(async () => {
      await page.getByRole('button', { name: 'Use a demo customer' }).click();
      await expect.poll(() => page.getByLabel('Customer id').inputValue()).toBe(customers[0]);
      await expect.poll(() => page.locator('.product-card .meta').innerText()).toContain(customers[0]!);
      await productLoaded();
    });
    expect(failures).toEqual([]);
    for (const method of config.customerMethods) await expectCardAsApi(method, refId, customers[0]);
    // The demo customer has a history: the recently viewed lists are not empty.
    expect((await cardItems('HistoricViewed')).refs.length).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(ARTIFACTS, '4b-product-customer.png'), fullPage: true });
  });

  it('shows a product\'s image when its image field (field role image, default image_url) holds a URL', async () => {
    const refId = await page.getByLabel('Product refId').inputValue();
    const url = `https://img.example/${refId}.svg`;
    const patched = await fetch(`${app.url}/admin/v1/websites/demo/products`, {
      method: 'PATCH', headers: { 'content-type': 'application/json', authorization: `Bearer ${identity.adminToken}` },
      body: JSON.stringify([{ refId, image_url: url }]),
    });
    expect(patched.status).toBe(200);
    await expect.poll(async () => (await recordsOf([refId])).get(refId)?.image_url).toBe(url);
    // The image host stands for a shop's CDN (the page may reach nothing else outside this server).
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#4f6bed"/></svg>';
    await page.route('https://img.example/**', (route) => route.fulfill({ contentType: 'image/svg+xml', body: svg }));
    const failures = await failuresDuring(async () => {
      await page.getByRole('button', { name: 'Show recommendations' }).click();
      await productLoaded();
      const image = page.locator('.product-card img');
      await expect.poll(() => image.getAttribute('src')).toBe(url);
      await expect.poll(() => image.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    });
    expect(failures).toEqual([]);
    // An item without an image keeps an empty box of the same size (the rows line up).
    expect(await page.locator('.method .thumb').count()).toBeGreaterThan(await page.locator('.method img.thumb').count());
  });

  /** The stored product, as `GET …/products/{refId}` answers it (undefined for a 404). */
  const stored = async (refId: string) => {
    const res = await fetch(`${app.url}/admin/v1/websites/demo/products/${encodeURIComponent(refId)}`, { headers: { authorization: `Bearer ${identity.adminToken}` } });
    if (res.status === 404) return undefined;
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  };
  const patchSettings = async (body: unknown) => {
    const res = await fetch(`${app.url}/admin/v1/websites/demo/settings`, {
      method: 'PATCH', headers: { 'content-type': 'application/json', authorization: `Bearer ${identity.adminToken}` }, body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
  };
  /** The catalog browser's fields: name → the text in its input. */
  const editorFields = () => page.locator('#catalog-edit tbody tr').evaluateAll((rows) => Object.fromEntries(rows.map((row) => [
    row.getAttribute('data-field')!, (row.querySelector('input, textarea') as HTMLInputElement).value,
  ])));
  const field = (name: string) => page.getByRole('textbox', { name, exact: true });
  /**
   * The visible controls of `selector` without an accessible name (a label, aria-label or aria-labelledby,
   * a button's text), and plots (`role="img"`) without a name, described by tag and id.
   */
  const unnamedControls = async (selector: string, atLeast: number) => {
    const { checked, unnamed } = await page.locator(selector).evaluate((root) => {
      const visible = [...root.querySelectorAll<HTMLElement>('button, input, select, textarea, [role="img"]')].filter((el) => el.getClientRects().length > 0);
      const nameless = visible.filter((el) => {
        const labelled = (el as HTMLInputElement).labels?.length || el.getAttribute('aria-label')?.trim() || el.getAttribute('aria-labelledby');
        return !labelled && !(el.tagName === 'BUTTON' && el.textContent!.trim());
      });
      return { checked: visible.length, unnamed: nameless.map((el) => `${el.tagName.toLowerCase()}#${el.id}`) };
    });
    // The view's controls were there to be checked.
    expect(checked, selector).toBeGreaterThanOrEqual(atLeast);
    return unnamed;
  };

  /** The product of the product view above (its image_url holds an image). */
  let browsed: string;

  it('finds products by words and by refId, and shows one as stored: every field, its image', async () => {
    browsed = await page.getByLabel('Product refId').inputValue();
    await page.getByLabel('Admin token').fill(identity.adminToken);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('tab', { name: 'Catalog' }).click();
    const finder = page.getByRole('searchbox', { name: 'RefId or words' });
    const failures = await failuresDuring(async () => {
      await finder.fill('lamp');
      await page.getByRole('button', { name: 'Find', exact: true }).click();
      const api = await apiSearch({ q: 'lamp', size: 10 });
      expect(api.payload.result.length).toBeGreaterThan(0);
      await expect.poll(() => page.locator('#catalog-matches .catalog-open').evaluateAll((b) => b.map((x) => (x as HTMLElement).dataset.ref)), { timeout: 10_000 })
        .toEqual(api.payload.result.map((p) => p.refId));
      // By refId: the product opens as stored, with every field.
      await finder.fill(browsed);
      await page.getByRole('button', { name: 'Find', exact: true }).click();
      await expect.poll(() => page.locator('#catalog-edit').count(), { timeout: 10_000 }).toBe(1);
    });
    expect(failures).toEqual([]);
    const product = (await stored(browsed))!;
    await expect.poll(() => page.locator('#catalog-title').innerText()).toBe(product.title);
    const fields = await editorFields();
    expect(Object.keys(fields).sort()).toEqual(Object.keys(product).filter((k) => k !== 'refId').sort());
    for (const [name, value] of Object.entries(product)) {
      if (name !== 'refId') expect(fields[name], name).toBe(typeof value === 'object' ? JSON.stringify(value, null, 2) : String(value));
    }
    // Its image field holds an image URL: the image is shown beside it.
    const image = page.getByRole('img', { name: `image_url of ${browsed}` });
    await expect.poll(() => image.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    expect(await unnamedControls('#view-catalog', 20)).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, '5-catalog.png'), fullPage: true });
  });

  it('edits a product through PATCH: the edit shows in GET …/products/{refId}; a refused value shows the API\'s error next to its field', async () => {
    const before = (await stored(browsed))!;
    const dropped = Object.keys(before).find((k) => !['refId', 'title', 'price', 'brand', 'image_url'].includes(k) && typeof before[k] === 'string')!;
    await field('title').fill(`${String(before.title)} (edited)`);
    await field('price').fill('12.5');
    await page.getByRole('button', { name: `Remove field ${dropped}` }).click();
    await page.getByLabel('Field name').fill('badges');
    await page.getByLabel('Field value').fill('["new", "eco"]');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    // A change of text rebuilds the catalog's indexes before the answer: on a loaded machine, seconds.
    await expect.poll(() => page.locator('#catalog-status').innerText(), { timeout: 15_000 }).toBe(`Saved 4 field(s) of ${browsed}.`);
    const after = (await stored(browsed))!;
    expect(after).toEqual({ ...Object.fromEntries(Object.entries(before).filter(([k]) => k !== dropped)), title: `${String(before.title)} (edited)`, price: 12.5, badges: ['new', 'eco'] });
    // The editor shows the product as stored now.
    expect((await editorFields()).badges).toBe(JSON.stringify(['new', 'eco'], null, 2));

    // With price pinned to numbers, a word is refused: the API's message is shown next to the price, nothing is saved.
    await patchSettings({ fields: { price: { type: 'number' } } });
    try {
      await field('price').fill('cheap');
      await field('title').fill('Not saved');
      await page.getByRole('button', { name: 'Save changes' }).click();
      const error = page.locator('#catalog-edit tr[data-field="price"] .field-error');
      await expect.poll(() => error.innerText(), { timeout: 15_000 }).toContain('field "price" is pinned to type number');
      expect(await field('price').getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator('#catalog-status').innerText()).toBe('The change was refused: nothing was saved.');
      expect(await stored(browsed)).toEqual(after);
    } finally {
      await patchSettings({ fields: null });
    }
  });

  it('deletes a product after a confirmation: GET answers 404 and searches no longer find it', async () => {
    await page.getByRole('button', { name: 'Delete product' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this product?' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await unnamedControls('#catalog-confirm', 2)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(await stored(browsed)).toBeDefined();
    await page.getByRole('button', { name: 'Delete product' }).click();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => page.locator('#catalog-status').innerText(), { timeout: 15_000 }).toMatch(new RegExp(`^Deleted ${browsed}; the catalog holds`));
    expect(await stored(browsed)).toBeUndefined();
    expect((await apiSearch({ q: '', scope: { refId: [browsed] } })).payload.total_results).toBe(0);
    expect(await page.locator('#catalog-edit').count()).toBe(0);
  });

  const adminGet = async <T>(pathAndQuery: string): Promise<T> => {
    const res = await fetch(`${app.url}${pathAndQuery}`, { headers: { authorization: `Bearer ${identity.adminToken}` } });
    expect(res.status, pathAndQuery).toBe(200);
    return (await res.json()) as T;
  };
  /** The page's latest call of a report (path and query string, as it asked). */
  const reportCall = (name: string) => {
    const call = apiCalls.filter((c) => c.url.pathname === `/admin/v1/websites/demo/reports/${name}`).at(-1);
    expect(call, name).toBeDefined();
    return `${call!.url.pathname}${call!.url.search}`;
  };
  const firstColumn = (id: string) => page.locator(`#${id} tbody tr td:first-child`).allInnerTexts();
  const reportCards = () => page.locator('#reports section.report');

  it('draws every insight of the demo\'s first start over the last 30 days, as the API answers it', async () => {
    await page.getByRole('tab', { name: 'Insights' }).click();
    // The token was typed in the catalog browser above; a fresh connection draws the reports again.
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => page.locator('[data-total="orders"]').count(), { timeout: 10_000 }).toBe(1);
    expect(await page.getByLabel('Period', { exact: true }).inputValue()).toBe('30');
    const today = new Date().toISOString().slice(0, 10);
    expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe(today);

    // The page asked each report for the last 30 UTC days; the same calls answer what it draws.
    const attributionCall = reportCall('attribution');
    expect(attributionCall).toContain(`to=${encodeURIComponent(`${today}T23:59:59Z`)}`);
    const a = await adminGet<{
      totals: { orders: number }; byRecommender: { key: string }[]; byCampaign: { key: string }[]; byAtsModel: { key: string }[]; byTactic: { key: string }[];
      retailMedia: { adSetId: string }[]; priceBeat: { code: string }[]; bySearchQuery: { key: string }[]; byRecommendationMethod: { key: string }[];
      byClickPosition: { kind: string; position: number }[];
    }>(attributionCall);
    const s = await adminGet<{ top: { query: string; count: number }[]; noResults: { query: string }[]; noClicks: { query: string }[] }>(reportCall('searches'));
    const r = await adminGet<{ methods: { method: string; tactics: { tactic: string; items: number }[] }[] }>(reportCall('recommendations'));
    expect(await page.locator('[data-total="orders"]').innerText()).toBe(String(a.totals.orders));
    // The money's currency is named (the demo's orders are in EUR; none is added in from another currency).
    expect(await page.locator('#report-totals-title').innerText()).toBe('Totals (EUR)');
    const keys = (list: { key: string }[]) => list.slice(0, 10).map((l) => l.key);
    expect(await firstColumn('report-recommenders')).toEqual(keys(a.byRecommender));
    expect(await firstColumn('report-tactics')).toEqual(keys(a.byTactic));
    expect(await firstColumn('report-campaigns')).toEqual(keys(a.byCampaign));
    expect(await firstColumn('report-models')).toEqual(keys(a.byAtsModel));
    expect(await firstColumn('report-click-queries')).toEqual(keys(a.bySearchQuery));
    expect(await firstColumn('report-click-methods')).toEqual(keys(a.byRecommendationMethod));
    expect(await firstColumn('report-click-positions')).toEqual(a.byClickPosition.slice(0, 20).map((p) => p.kind));
    expect(await firstColumn('report-adsets')).toEqual(a.retailMedia.map((x) => x.adSetId));
    expect(await firstColumn('report-pricebeat')).toEqual(a.priceBeat.slice(0, 10).map((p) => p.code));
    expect(await firstColumn('report-top-searches')).toEqual(s.top.slice(0, 10).map((t) => t.query));
    expect(await page.locator('#report-top-searches tbody tr td:nth-child(2)').allInnerTexts()).toEqual(s.top.slice(0, 10).map((t) => String(t.count)));
    expect(await firstColumn('report-search-ctr')).toEqual(s.top.slice(0, 10).map((t) => t.query));
    expect(await firstColumn('report-no-results')).toEqual(s.noResults.slice(0, 10).map((t) => t.query));
    expect(await firstColumn('report-no-clicks')).toEqual(s.noClicks.slice(0, 10).map((t) => t.query));
    expect(await firstColumn('report-rec-methods')).toEqual(r.methods.slice(0, 10).map((m) => m.method));
    const tactics = r.methods.flatMap((m) => m.tactics.map((t) => ({ ...t, method: m.method }))).sort((x, y) => y.items - x.items).slice(0, 20);
    expect(await page.locator('#report-rec-tactics tbody tr').evaluateAll((rows) => rows.map((row) => `${row.children[0]!.textContent} ${row.children[1]!.textContent}`)))
      .toEqual(tactics.map((t) => `${t.tactic} ${t.method}`));
    // The queries typed in the search page above are in the log too.
    expect(s.top.map((t) => t.query)).toContain('shirt');

    // Every panel has rows and bars: the demo's traffic fills them all on its first start.
    const cards = await reportCards().evaluateAll((sections) => sections.map((el) => ({
      id: el.id, rows: el.querySelectorAll('tbody tr').length, bars: el.querySelectorAll('svg[role="img"] rect.bar').length, empty: el.querySelector('.empty, .error') !== null,
    })));
    expect(cards.map((c) => c.id).sort()).toEqual([
      'report-adsets', 'report-campaigns', 'report-click-methods', 'report-click-positions', 'report-click-queries', 'report-models', 'report-no-clicks',
      'report-no-results', 'report-pricebeat', 'report-rec-methods', 'report-rec-tactics', 'report-recommenders', 'report-search-ctr', 'report-tactics', 'report-top-searches',
    ]);
    for (const c of cards) {
      expect(c.empty, c.id).toBe(false);
      expect(c.rows, c.id).toBeGreaterThan(0);
      expect(c.bars, c.id).toBe(c.rows);
    }
    // Each plot is named after its report (an image with an accessible name).
    await expect.poll(() => page.getByRole('img', { name: 'Top searches plot', exact: true }).count()).toBe(1);
    expect(await unnamedControls('#view-reports', 19)).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, '6-insights.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it('asks every report for the date range chosen: a custom range before the demo is empty, all time is everything', async () => {
    await page.getByLabel('From', { exact: true }).fill('2020-01-01');
    await page.getByLabel('To', { exact: true }).fill('2020-01-31');
    expect(await page.getByLabel('Period', { exact: true }).inputValue()).toBe('custom');
    await page.getByRole('button', { name: 'Show' }).click();
    // Every card says so (the 15 of the test above; counted once the answers are drawn, not while loading).
    await expect.poll(() => page.locator('#reports .empty').count(), { timeout: 10_000 }).toBe(15);
    expect(await reportCards().count()).toBe(15);
    for (const name of ['searches', 'recommendations', 'attribution']) {
      const call = new URL(reportCall(name), app.url);
      expect(call.searchParams.get('from'), name).toBe('2020-01-01T00:00:00Z');
      expect(call.searchParams.get('to'), name).toBe('2020-01-31T23:59:59Z');
    }
    expect(await page.locator('[data-total="orders"]').innerText()).toBe('0');

    await page.getByLabel('Period', { exact: true }).selectOption({ label: 'All time' });
    const all = await adminGet<{ totals: { orders: number } }>('/admin/v1/websites/demo/reports/attribution');
    await expect.poll(() => page.locator('[data-total="orders"]').innerText(), { timeout: 10_000 }).toBe(String(all.totals.orders));
    expect(new URL(reportCall('attribution'), app.url).search).toBe('');
    expect(await page.locator('#reports .empty').count()).toBe(0);
  });

  it('starts, reports, stops and deletes an experiment, as the API answers them; a bad override shows the API\'s error', async () => {
    await page.getByRole('tab', { name: 'Experiments' }).click();
    await page.getByLabel('Admin token').fill(identity.adminToken);
    await page.getByRole('button', { name: 'Connect' }).click();
    const form = page.locator('#experiment-form');
    await form.getByLabel('Name', { exact: true }).fill('Synonyms for tee');
    await form.locator('textarea[name="override"]').fill('{"colour": 1}');
    await form.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => page.locator('#experiment-error').innerText()).toContain('colour');
    await form.locator('textarea[name="override"]').fill('{"synonyms": [["tee", "t-shirt"]]}');
    await form.getByRole('button', { name: 'Start' }).click();
    const api = async () => ((await (await fetch(`${app.url}/admin/v1/websites/demo/experiments`, { headers: { authorization: `Bearer ${identity.adminToken}` } })).json()) as {
      experiments: { id: string; name: string; status: string }[];
    }).experiments;
    await expect.poll(async () => (await api()).map((e) => [e.name, e.status])).toEqual([['Synonyms for tee', 'running']]);
    // The report: a row per variant, and one interval plot per metric.
    await expect.poll(() => page.locator('#experiment-report table').first().locator('tbody tr td:first-child').allInnerTexts()).toEqual(['control', 'variant']);
    // The comparison with the control names its tests.
    expect(await page.locator('#experiment-report table.comparisons td[title]').first().getAttribute('title')).toMatch(/Welch/);
    // A new experiment has no users yet: every figure reads "not computable" with the reason, never "0.0 %" or "NaN" (decision 0073).
    const comparisons = await page.locator('#experiment-report table.comparisons tbody').innerText();
    expect(comparisons).toContain('not computable');
    expect(comparisons).toContain('a comparison needs at least 2 per variant');
    expect(comparisons).not.toMatch(/NaN|0\.0 %/);
    expect(await page.locator('#experiment-report svg').count()).toBe(3);
    await page.screenshot({ path: path.join(ARTIFACTS, '7-experiments.png'), fullPage: true });
    await page.locator('#experiment-list button[data-action="stop"]').click();
    await expect.poll(async () => (await api()).map((e) => e.status)).toEqual(['stopped']);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.locator('#experiment-list button[data-action="delete"]').click();
    await expect.poll(async () => (await api()).length).toBe(0);
    await expect.poll(() => page.locator('#experiment-list').innerText()).toContain('No experiment yet');
    expect(pageErrors).toEqual([]);
  });

  describe('the merchandising studio and the settings editors', () => {
    /** How long a poll waits for the page (previews and saves are API round trips; the machine may be busy). */
    const PATIENCE = { timeout: 15_000 };
    /** Every API call the page makes from here on (fetches), as method and path. */
    const calls: { method: string; path: string }[] = [];
    const onRequest = (req: { resourceType(): string; method(): string; url(): string }) => {
      if (req.resourceType() === 'fetch' || req.resourceType() === 'xhr') calls.push({ method: req.method(), path: new URL(req.url()).pathname });
    };
    const adminGet = async <T>(what: string): Promise<T> => (await (await fetch(`${app.url}/admin/v1/websites/demo/${what}`, { headers: { authorization: `Bearer ${identity.adminToken}` } })).json()) as T;
    const studio = () => page.locator('#view-studio');
    const liveRefs = () => page.locator('#studio-live li[data-ref]').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.ref!));
    const afterRefs = () => page.locator('#studio-after li[data-ref]').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.ref!));

    beforeAll(async () => {
      page.on('request', onRequest);
      await page.goto(`${app.url}/`);
      await page.getByLabel('Admin token').fill(identity.adminToken);
      await page.getByRole('button', { name: 'Connect' }).click();
      await page.getByRole('tab', { name: 'Studio' }).click();
      await studio().getByRole('button', { name: 'Save synonyms' }).waitFor();
    });
    afterAll(() => { page.off('request', onRequest); });

    /** The `rank`-th largest category, as a shopper types it. */
    const category = async (rank: number) => (await apiSearch({ q: '', aggregations: ['search_category'] })).payload.aggregations!.search_category![rank]!.key.toLowerCase();

    it('pins and hides results of a query, previews the change, and saves it: the pin shows at its position in an API search', async () => {
      const q = await category(0);
      await studio().getByLabel('Query to merchandise').fill(q);
      await studio().getByRole('button', { name: 'Open the query' }).click();
      const live = await apiSearch({ q });
      await expect.poll(liveRefs, PATIENCE).toEqual(live.payload.result.map((p) => p.refId));
      // The live list is the API's ranking, shown by title.
      const target = live.payload.result[4]!;
      const hidden = live.payload.result[0]!;
      const row = page.locator(`#studio-live li[data-ref="${target.refId}"]`);
      expect(await row.innerText()).toContain(target.title);
      await row.getByLabel(`Pin position for ${target.title}`).fill('2');
      await row.getByRole('button', { name: `Pin ${target.title}`, exact: true }).click();
      await page.locator(`#studio-live li[data-ref="${hidden.refId}"]`).getByRole('button', { name: `Hide ${hidden.title}`, exact: true }).click();
      // The preview (the API's) shows the change before anything is saved.
      await expect.poll(async () => (await afterRefs())[1], PATIENCE).toBe(target.refId);
      expect(await afterRefs()).not.toContain(hidden.refId);
      expect(await page.locator('#studio-gone').innerText()).toContain(hidden.title);
      expect((await apiSearch({ q })).payload.result.map((p) => p.refId)).toEqual(live.payload.result.map((p) => p.refId));
      // A product the query does not find, pinned by its refId, is placed too.
      const other = (await apiSearch({ q: '', size: 100 })).payload.result.find((p) => !live.payload.result.some((l) => l.refId === p.refId) && p.refId !== hidden.refId)!;
      await studio().getByLabel('Product refId to pin').fill(other.refId);
      await studio().getByLabel('Position to pin it at').fill('3');
      await studio().getByRole('button', { name: 'Pin by refId' }).click();
      await expect.poll(async () => (await afterRefs())[2], PATIENCE).toBe(other.refId);
      await page.screenshot({ path: path.join(ARTIFACTS, '6-studio-preview.png'), fullPage: true });

      await studio().getByRole('button', { name: 'Save rule' }).click();
      await expect.poll(() => page.locator('#rule-form .form-message').innerText(), PATIENCE).toContain('Saved');
      const after = (await apiSearch({ q })).payload.result.map((p) => p.refId);
      expect(after[1]).toBe(target.refId);
      expect(after[2]).toBe(other.refId);
      expect(after).not.toContain(hidden.refId);
      const settings = await adminGet<{ rules: { query: string; match?: string; pin?: unknown[]; hide?: string[] }[] }>('settings');
      expect(settings.rules).toContainEqual(expect.objectContaining({
        query: q, match: 'exact', pin: [{ refId: target.refId, position: 2 }, { refId: other.refId, position: 3 }], hide: [hidden.refId],
      }));
      // Reopened, the query shows its saved rule.
      await studio().getByRole('button', { name: 'Open the query' }).click();
      await expect.poll(() => page.locator('#rule-title').innerText(), PATIENCE).toBe(`Rule for “${q}”`);
      expect(await studio().getByLabel(`Pinned position of ${target.title}`).inputValue()).toBe('2');
    });

    it('boosts by a facet value: the preview and, once saved, the API search put that value first', async () => {
      // A text query (boosts multiply relevance), not the one pinned above.
      const q = await category(1);
      const browse = await apiSearch({ q, aggregations: ['brand'] });
      // A brand that is not first in the plain ranking.
      const brand = browse.payload.aggregations!.brand!.map((b) => b.key).find((key) => browse.payload.result[0]!.brand !== key)!;
      await studio().getByLabel('Query to merchandise').fill(q);
      await studio().getByRole('button', { name: 'Open the query' }).click();
      await expect.poll(liveRefs, PATIENCE).toEqual(browse.payload.result.map((p) => p.refId));
      await studio().getByLabel('Facet', { exact: true }).selectOption('brand');
      await studio().getByLabel('Facet value').fill(brand);
      await studio().getByRole('button', { name: 'Boost (×2)' }).click();
      await studio().getByLabel(`Weight of brand = ${brand}`).fill('1000');
      await studio().getByLabel(`Weight of brand = ${brand}`).dispatchEvent('change');
      const boosted = await apiSearch({ q, scope: { brand: [brand] }, size: 1 });
      await expect.poll(async () => (await afterRefs())[0], PATIENCE).toBe(boosted.payload.result[0]!.refId);
      await studio().getByRole('button', { name: 'Save rule' }).click();
      await expect.poll(() => page.locator('#rule-form .form-message').innerText(), PATIENCE).toContain('Saved');
      expect((await apiSearch({ q, size: 1 })).payload.result[0]!.brand).toBe(brand);
      // Deleted, the plain order is back.
      await studio().getByRole('button', { name: 'Delete rule' }).click();
      await expect.poll(() => page.locator('#rule-form .form-message').innerText(), PATIENCE).toContain('no rule');
      expect((await apiSearch({ q })).payload.result.map((p) => p.refId)).toEqual(browse.payload.result.map((p) => p.refId));
    });

    it('saves a rule with a time window: not in force before it opens, and stored with from and until', async () => {
      const q = await category(2);
      await studio().getByLabel('Query to merchandise').fill(q);
      await studio().getByRole('button', { name: 'Open the query' }).click();
      const live = await apiSearch({ q });
      await expect.poll(liveRefs, PATIENCE).toEqual(live.payload.result.map((p) => p.refId));
      const last = live.payload.result.at(-1)!;
      await studio().getByLabel('Product refId to pin').fill(last.refId);
      await studio().getByLabel('Position to pin it at').fill('1');
      await studio().getByRole('button', { name: 'Pin by refId' }).click();
      await expect.poll(async () => (await afterRefs())[0], PATIENCE).toBe(last.refId);
      // Opening next year (local time, as the field shows it): the preview is the live order again.
      const year = new Date().getFullYear() + 1;
      await studio().getByLabel('Active from').fill(`${year}-01-01T09:00`);
      await studio().getByLabel('Active from').dispatchEvent('change');
      await studio().getByLabel('Active until').fill(`${year}-02-01T09:00`);
      await studio().getByLabel('Active until').dispatchEvent('change');
      await expect.poll(afterRefs, PATIENCE).toEqual(live.payload.result.map((p) => p.refId));
      await studio().getByRole('button', { name: 'Save rule' }).click();
      await expect.poll(() => page.locator('#rule-form .form-message').innerText(), PATIENCE).toContain('Saved');
      const rules = (await adminGet<{ rules: { query: string; from?: string; until?: string }[] }>('settings')).rules;
      const saved = rules.find((r) => r.query === q)!;
      expect(new Date(saved.from!).getTime()).toBe(new Date(`${year}-01-01T09:00`).getTime());
      expect(new Date(saved.until!).getTime()).toBe(new Date(`${year}-02-01T09:00`).getTime());
      expect((await apiSearch({ q })).payload.result.map((p) => p.refId)).toEqual(live.payload.result.map((p) => p.refId));
      // Reopened, the window shows as it was typed.
      await studio().getByRole('button', { name: 'Open the query' }).click();
      await expect.poll(() => studio().getByLabel('Active from').inputValue(), PATIENCE).toBe(`${year}-01-01T09:00`);
    });

    it('saves on condition of the version it read: a save after someone else\'s says so, writes nothing, and reloads on request', async () => {
      const ifMatches: (string | undefined)[] = [];
      const onSave = (req: { method(): string; url(): string; headers(): Record<string, string> }) => {
        if (req.method() === 'PATCH' && new URL(req.url()).pathname.endsWith('/settings')) ifMatches.push(req.headers()['if-match']);
      };
      page.on('request', onSave);
      try {
        const q = await category(3);
        await studio().getByLabel('Query to merchandise').fill(q);
        await studio().getByRole('button', { name: 'Open the query' }).click();
        const live = await apiSearch({ q });
        await expect.poll(liveRefs, PATIENCE).toEqual(live.payload.result.map((p) => p.refId));
        const first = live.payload.result.at(-1)!;
        await page.locator(`#studio-live li[data-ref="${first.refId}"]`).getByRole('button', { name: `Hide ${first.title}`, exact: true }).click();
        await expect.poll(afterRefs, PATIENCE).not.toContain(first.refId);
        // Another merchant saves meanwhile (another tab, another replica).
        const other = await fetch(`${app.url}/admin/v1/websites/demo/settings`, {
          method: 'PATCH', headers: { authorization: `Bearer ${identity.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ stopWords: ['zzother'] }),
        });
        expect(other.status).toBe(200);
        await studio().getByRole('button', { name: 'Save rule' }).click();
        const message = page.locator('#rule-form .form-message');
        await expect.poll(() => message.innerText(), PATIENCE).toContain('Changed by someone else');
        await page.screenshot({ path: path.join(ARTIFACTS, '6b-studio-changed-elsewhere.png'), fullPage: true });
        // Nothing of this save was written; the other merchant's change stands.
        const stored = await adminGet<{ rules: { query: string }[]; stopWords: string[] }>('settings');
        expect(stored.rules.some((r) => r.query === q)).toBe(false);
        expect(stored.stopWords).toEqual(['zzother']);
        // The settings editors held the same version: their save is refused too.
        const editor = page.locator('#editor-stopWords');
        await editor.getByRole('textbox', { name: 'Stop words' }).fill('zzmine');
        await editor.getByRole('button', { name: 'Save stop words' }).click();
        await expect.poll(() => editor.locator('.form-message').innerText(), PATIENCE).toContain('Changed by someone else');
        expect((await adminGet<{ stopWords: string[] }>('settings')).stopWords).toEqual(['zzother']);
        // Reloaded, the page shows the other change and saves again.
        await message.getByRole('button', { name: 'Reload' }).click();
        await expect.poll(() => page.locator('#editor-stopWords').getByRole('textbox', { name: 'Stop words' }).inputValue(), PATIENCE).toBe('zzother');
        await page.locator(`#studio-live li[data-ref="${first.refId}"]`).getByRole('button', { name: `Hide ${first.title}`, exact: true }).click();
        await expect.poll(afterRefs, PATIENCE).not.toContain(first.refId);
        await studio().getByRole('button', { name: 'Save rule' }).click();
        await expect.poll(() => message.innerText(), PATIENCE).toContain('Saved');
        const saved = await adminGet<{ rules: { query: string; hide?: string[] }[]; stopWords: string[] }>('settings');
        expect(saved.rules).toContainEqual(expect.objectContaining({ query: q, hide: [first.refId] }));
        expect(saved.stopWords).toEqual(['zzother']);
        // Every save the page sent named the version it had read.
        expect(ifMatches.length).toBe(3);
        for (const tag of ifMatches) expect(tag).toMatch(/^"[^"]+"$/);
        // Leave the other tests the settings they expect (through the page, which holds the version now).
        await studio().getByRole('button', { name: 'Delete rule' }).click();
        await expect.poll(() => message.innerText(), PATIENCE).toContain('no rule');
        await page.locator('#editor-stopWords').getByRole('textbox', { name: 'Stop words' }).fill('');
        await page.locator('#editor-stopWords').getByRole('button', { name: 'Save stop words' }).click();
        await expect.poll(async () => (await adminGet<{ stopWords: string[] }>('settings')).stopWords, PATIENCE).toEqual([]);
      } finally {
        page.off('request', onSave);
      }
    });

    it('saves a two-way synonym in the editor: an API search for the new word finds what the old one does', async () => {
      const word = 'zorbleflap';
      expect((await apiSearch({ q: word })).payload.total_results).toBe(0);
      const editor = page.locator('#editor-synonyms');
      await editor.getByRole('button', { name: 'Add synonym' }).click();
      await editor.getByRole('textbox', { name: /^Equivalent words of synonym \d+/ }).last().fill(`${word}, shirt`);
      await editor.getByRole('button', { name: 'Save synonyms' }).click();
      await expect.poll(() => editor.locator('.form-message').innerText(), PATIENCE).toContain('Saved');
      const found = await apiSearch({ q: word });
      expect(found.payload.total_results).toBeGreaterThan(0);
      expect(found.payload.total_results).toBe((await apiSearch({ q: 'shirt' })).payload.total_results);
      expect((await adminGet<{ synonyms: unknown[] }>('settings')).synonyms).toContainEqual([word, 'shirt']);
      // One-way: a query for the new word finds what "shirt" finds.
      const oneWay = 'quabblewrap';
      await editor.getByRole('button', { name: 'Add synonym' }).click();
      await editor.getByRole('combobox', { name: /^Kind of synonym \d+/ }).last().selectOption('one-way');
      await editor.getByRole('textbox', { name: /^Query of synonym \d+/ }).last().fill(oneWay);
      await editor.getByRole('textbox', { name: /^Also finds \(synonym \d+\)/ }).last().fill('shirt');
      await editor.getByRole('button', { name: 'Save synonyms' }).click();
      await expect.poll(async () => (await adminGet<{ synonyms: unknown[] }>('settings')).synonyms, PATIENCE).toContainEqual({ from: oneWay, to: ['shirt'] });
      expect((await apiSearch({ q: oneWay })).payload.total_results).toBe((await apiSearch({ q: 'shirt' })).payload.total_results);
    });

    it('saves a redirect in the editor: an API search for its query answers its URL', async () => {
      const editor = page.locator('#editor-redirects');
      await editor.getByRole('button', { name: 'Add redirect' }).click();
      await editor.getByRole('textbox', { name: /^Queries of redirect \d+/ }).last().fill('help, contact us');
      await editor.getByRole('textbox', { name: /^URL of redirect \d+/ }).last().fill('https://shop.example/help');
      await editor.getByRole('button', { name: 'Save redirects' }).click();
      await expect.poll(() => editor.locator('.form-message').innerText(), PATIENCE).toContain('Saved');
      const answer = (await apiSearch({ q: 'Contact  us' })) as SearchAnswer & { payload: { redirects: { url?: string } } };
      expect(answer.payload.redirects.url).toBe('https://shop.example/help');
    });

    it('shows the API\'s validation errors next to their field, and stores nothing', async () => {
      const before = await adminGet<Record<string, unknown>>('settings');
      const editor = page.locator('#editor-typoTolerance');
      const field = editor.getByLabel('Minimum word length for one typo');
      await field.fill('0');
      await editor.getByRole('button', { name: 'Save typo tolerance' }).click();
      await expect.poll(() => field.getAttribute('aria-invalid'), PATIENCE).toBe('true');
      // The message is the API's, beside the field (it describes the field for a screen reader).
      const note = page.locator(`#${(await field.getAttribute('aria-describedby'))!}`);
      expect(await note.innerText()).toContain('typoTolerance.minWordSizeOneTypo');
      expect(await field.evaluate((el) => el.nextElementSibling?.classList.contains('field-error'))).toBe(true);
      // A rule's bad pin position: the preview's error is shown beside the pin's position.
      await studio().getByLabel('Query to merchandise').fill(await category(0));
      await studio().getByRole('button', { name: 'Open the query' }).click();
      const pinned = studio().getByLabel(/^Pinned position of /).first();
      await pinned.fill('0');
      await pinned.dispatchEvent('change');
      await expect.poll(() => pinned.getAttribute('aria-invalid'), PATIENCE).toBe('true');
      expect(await page.locator(`#${(await pinned.getAttribute('aria-describedby'))!}`).innerText()).toMatch(/pin\[0\]\.position/);
      // A field weight below zero, beside the weight.
      const weights = page.locator('#editor-fieldWeights');
      const weight = weights.getByLabel(/^Weight of /).first();
      await weight.fill('-1');
      await weights.getByRole('button', { name: 'Save field weights' }).click();
      await expect.poll(() => weight.getAttribute('aria-invalid'), PATIENCE).toBe('true');
      // A pinned type stored products do not fit: the 409's message beside the field's type.
      const types = page.locator('#editor-fields');
      await types.getByRole('button', { name: 'Add typed field' }).click();
      await types.getByRole('textbox', { name: /^Name of typed field \d+/ }).last().fill('brand');
      await types.getByRole('combobox', { name: /^Type of typed field \d+/ }).last().selectOption('number');
      await types.getByRole('button', { name: 'Save typed fields' }).click();
      const type = types.getByRole('combobox', { name: 'Type of brand' });
      await expect.poll(() => type.getAttribute('aria-invalid'), PATIENCE).toBe('true');
      expect(await page.locator(`#${(await type.getAttribute('aria-describedby'))!}`).innerText()).toMatch(/^product ".+": /);
      expect(await adminGet<Record<string, unknown>>('settings')).toEqual(before);
      await page.screenshot({ path: path.join(ARTIFACTS, '7-studio-errors.png'), fullPage: true });
    });

    it('names every control for assistive technology, and calls only the documented API', async () => {
      const unnamed = await studio().locator('input, select, textarea, button').evaluateAll((controls) => controls
        .filter((c) => {
          const el = c as HTMLInputElement;
          const named = el.getAttribute('aria-label')?.trim() || el.getAttribute('aria-labelledby') || (el.labels?.length ?? 0) > 0
            || (el.tagName === 'BUTTON' && el.textContent!.trim() !== '');
          return !named;
        })
        .map((c) => c.outerHTML.slice(0, 120)));
      expect(unnamed).toEqual([]);
      expect(calls.length).toBeGreaterThan(0);
      // The committed document (docs/openapi.json; transport.test.ts keeps it equal to the declarations).
      const doc = JSON.parse(readFileSync(path.join(REPO, 'docs', 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
      const documented = Object.entries(doc.paths).map(([template, ops]) => ({
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
        methods: Object.keys(ops).map((m) => m.toUpperCase()),
      }));
      const undocumented = calls.filter((c) => !documented.some((d) => d.pattern.test(c.path) && d.methods.includes(c.method)));
      expect(undocumented).toEqual([]);
      // The studio's own calls are among them.
      expect(calls).toContainEqual({ method: 'POST', path: '/admin/v1/websites/demo/settings/preview' });
      expect(calls).toContainEqual({ method: 'PATCH', path: '/admin/v1/websites/demo/settings' });
      expect(pageErrors).toEqual([]);
    });
  });

  it('takes the README screenshot of the search page', async () => {
    await page.goto(`${app.url}/`);
    // The largest category, typed as a shopper would.
    const category = (await apiSearch({ q: '', aggregations: ['search_category'] })).payload.aggregations!.search_category![0]!.key.toLowerCase();
    await page.getByRole('searchbox', { name: 'Search', exact: true }).fill(category);
    const api = await apiSearch({ q: category, aggregations: ['brand'] });
    await waitForStats(api.payload.total_results);
    // One brand ticked: its siblings stay listed (disjunctive counts), the words found are marked.
    const brand = api.payload.aggregations!.brand![0]!;
    await page.getByRole('checkbox', { name: `${brand.key} (${brand.doc_count})` }).check();
    await waitForStats(brand.doc_count);
    const file = process.env.AISLE_UPDATE_SCREENSHOT ? path.join(REPO, 'docs', 'dashboard.png') : path.join(ARTIFACTS, 'dashboard.png');
    await page.screenshot({ path: file });
  });

  it('made only documented API calls (each method and path is in docs/openapi.json)', () => {
    const documented = JSON.parse(readFileSync(path.join(REPO, 'docs', 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(documented.paths).map(([template, operations]) => ({
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`), methods: Object.keys(operations),
    }));
    expect(apiCalls.length).toBeGreaterThan(20);
    const undocumented = apiCalls.filter(({ method, url }) => !routes.some((r) => r.pattern.test(url.pathname) && r.methods.includes(method.toLowerCase())));
    expect(undocumented.map(({ method, url }) => `${method} ${url.pathname}`)).toEqual([]);
    // The catalog browser's calls are among them.
    const made = new Set(apiCalls.map(({ method, url }) => `${method} ${url.pathname.replace(/products\/[^/]+$/, 'products/{refId}')}`));
    for (const call of ['GET /admin/v1/websites/demo/products/{refId}', 'PATCH /admin/v1/websites/demo/products', 'DELETE /admin/v1/websites/demo/products/{refId}']) expect(made).toContain(call);
  });
});
