/**
 * Hierarchies over a real restart (a new engine on the data directory, or on the PostgreSQL schema
 * holding the catalog): the website's hierarchies
 * in force are on the catalog's current version when the start resolves — read from the snapshot
 * (format 6) or derived by the start's own step (a setting the snapshot's version did not have, one put
 * in force through the settings API, a catalog the start rebuilt from its change log, as on PostgreSQL
 * here) — so the first category page neither derives one on the event loop nor waits for one, and
 * answers as before the restart (decision 0055).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FailureReporter } from '../background-failures.js';
import { buildHierarchy, derivedHierarchies, hierarchyOf } from '../catalog/columns/hierarchy-column.js';
import { loadCatalogSnapshot } from '../catalog/durability/snapshot.js';
import type { StoreConfig } from '../config.js';
import type { HierarchySetting } from '../contract/settings-schema.js';
import { createEngine } from '../engine.js';
import type { Engine } from '../engine-api.js';
import { requirePostgres, TEST_PG_URL, TestSchemas } from '../store/pg-test-env.js';
import type { Product } from '../types.js';
import { shutDown } from './shutdown.js';
import { startEngine } from './start.js';
import type { WebsiteState } from './website-state.js';

const CATEGORIES: HierarchySetting = { field: 'categories' };
const site = { websiteId: 'shop', client: 'shop', tokens: ['t'], hmacSecret: 's' };
const withHierarchy = { ...site, settings: { hierarchies: { categories: CATEGORIES } } };

const products: Product[] = Array.from({ length: 60 }, (_, i) => ({
  refId: `p${i}`, title: `item ${i}`, brand: ['Acme', 'Zeta', 'Ore'][i % 3],
  categories: [['Home', 'Toys', 'Garden'][i % 3], ['Small', 'Large'][i % 2], ...(i % 5 === 0 ? ['Sale'] : [])],
}));

/** The category page of the restart bench: a subtree two levels down with the category menu. */
const categoryPage = (engine: Engine) => engine.search({
  website_id: 'shop', client: 'shop', q: '', start: 0, size: 5, scope: { categories: ['Home > Small'] }, hierarchical_facets: ['categories'], aggregations: ['brand'],
}).then(({ query_id: _id, ...rest }) => rest);

const schemas = new TestSchemas();
afterAll(() => schemas.dropAll());

let dataDir: string;
/** Where the catalog lives besides: the data directory (undefined), or a PostgreSQL schema. */
let store: StoreConfig | undefined;
afterEach(async () => { await rm(dataDir, { recursive: true, force: true }); });

/** A new engine on the test's data directory and store. */
const engineOn = (websites: (typeof site)[]) => createEngine({ dataDir, workers: 0, websites, ...(store && { store }) });

/** Starts the engine's parts on the data directory and store (as createEngine does), answers its websites before any request, then shuts down. */
async function websitesAtStart(websites: (typeof site)[]): Promise<Map<string, WebsiteState>> {
  const sites = new Map<string, WebsiteState>();
  const reporter = new FailureReporter();
  const parts = await startEngine({
    options: { dataDir, workers: 0, websites }, storeSource: store, embedders: new Map(), reporter, logger: undefined, onClickOutcome: undefined,
    sites, site: (websiteId) => sites.get(websiteId)!, closed: () => false, searchPoolFrom: Infinity,
  });
  await shutDown(parts, sites, undefined, reporter);
  return sites;
}

/** Whether the catalog's current version holds `setting`'s hierarchy, equal to one derived from scratch. */
function expectHierarchyAtStart(state: WebsiteState): void {
  const catalog = state.catalog.state;
  expect(derivedHierarchies(catalog).map((h) => h.setting)).toContainEqual(CATEGORIES);
  const kept = hierarchyOf(catalog, CATEGORIES);
  const fresh = buildHierarchy(catalog, CATEGORIES);
  expect([...kept.column.codes]).toEqual([...fresh.column.codes]);
  expect(kept.value.slice(0, kept.column.dictSize)).toEqual(fresh.value.slice(0, fresh.column.dictSize));
}

describe.each([
  { name: 'a data directory', postgres: false },
  { name: 'PostgreSQL', postgres: true },
])('hierarchies over a restart on $name', ({ postgres }) => {
  beforeAll(async () => { if (postgres) await requirePostgres(); });
  const fresh = async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-hierarchies-'));
    store = postgres ? { type: 'postgres', url: TEST_PG_URL, schema: schemas.next() } : undefined;
  };
  /** The hierarchies in the data directory's snapshot file (on PostgreSQL the catalog's snapshot and log are in the store). */
  const snapshotHierarchies = async () => derivedHierarchies((await loadCatalogSnapshot(path.join(dataDir, 'catalogs', 'shop.aislesnap'))).state);

  it('are on the catalog when the start resolves (a data directory\'s snapshot keeps them); the first category page answers as before', async () => {
    await fresh();
    const first = await engineOn([withHierarchy]);
    await first.replaceProducts('shop', products);
    await first.upsertProducts('shop', [{ refId: 'p60', title: 'late', categories: ['Home', 'Small', 'New'] }]);
    const before = await categoryPage(first);
    await first.close();
    // The snapshot holds the hierarchy (format 6).
    if (!postgres) expect((await snapshotHierarchies()).map((h) => h.setting)).toEqual([CATEGORIES]);
    expectHierarchyAtStart((await websitesAtStart([withHierarchy])).get('shop')!);
    const second = await engineOn([withHierarchy]);
    try {
      expect(await categoryPage(second)).toEqual(before);
    } finally {
      await second.close();
    }
  });

  it('derives before the start resolves a hierarchy the snapshot does not hold: one added to the config, one stored through the settings API', async () => {
    await fresh();
    const first = await engineOn([site]);
    await first.replaceProducts('shop', products);
    await first.close();
    if (!postgres) expect(await snapshotHierarchies()).toEqual([]);
    // Added to the config file while stopped.
    expectHierarchyAtStart((await websitesAtStart([withHierarchy])).get('shop')!);
    // Put in force through the settings API (stored settings, read by the start before its derivation).
    const second = await engineOn([site]);
    await second.updateSettings('shop', { hierarchies: { categories: CATEGORIES } }, { merge: true });
    await second.close();
    expectHierarchyAtStart((await websitesAtStart([site])).get('shop')!);
  });
});
