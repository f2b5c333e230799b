/**
 * Websites put in force at run time (engine/websites.ts): a website added by addWebsite, or an existing
 * one re-configured, holds the hierarchies of its settings when addWebsite resolves, as after the
 * engine's start (decision 0055), so its first category page derives none; the failures of a catalog's
 * background work (a hierarchy derivation, a version listener) go to the engine's failure reporter.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FailureReporter, type BackgroundFailure } from '../background-failures.js';
import { buildHierarchy, derivedHierarchies, hierarchyOf } from '../catalog/columns/hierarchy-column.js';
import type { WebsiteConfig } from '../config.js';
import type { HierarchySetting } from '../contract/settings-schema.js';
import { createEngine } from '../engine.js';
import type { Product } from '../types.js';
import { shutDown } from './shutdown.js';
import { startEngine, type StartedEngine } from './start.js';
import type { WebsiteState } from './website-state.js';
import { addWebsite } from './websites.js';

const CATEGORIES: HierarchySetting = { field: 'categories' };
const site: WebsiteConfig = { websiteId: 'shop', client: 'shop', tokens: ['t'], hmacSecret: 's' };
const withHierarchy: WebsiteConfig = { ...site, settings: { hierarchies: { categories: CATEGORIES } } };

const products: Product[] = Array.from({ length: 40 }, (_, i) => ({
  refId: `p${i}`, title: `item ${i}`, categories: [['Home', 'Toys'][i % 2], ['Small', 'Large'][i % 3 === 0 ? 0 : 1]],
}));

let dataDir: string;
beforeEach(async () => { dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-websites-')); });
afterEach(async () => { await rm(dataDir, { recursive: true, force: true }); });

/** The engine's parts started on the data directory with `websites` (as createEngine does), and what its reporter was given. */
async function started(websites: WebsiteConfig[]): Promise<{ sites: Map<string, WebsiteState>; parts: StartedEngine; reporter: FailureReporter; failures: BackgroundFailure[] }> {
  const sites = new Map<string, WebsiteState>();
  const failures: BackgroundFailure[] = [];
  const reporter = new FailureReporter({ logger: { error: () => {}, warn: () => {}, info: () => {} }, onError: (_err, failure) => failures.push(failure) });
  const parts = await startEngine({
    options: { dataDir, workers: 0, websites }, storeSource: undefined, embedders: new Map(), reporter, logger: undefined, onClickOutcome: undefined,
    sites, site: (websiteId) => sites.get(websiteId)!, closed: () => false, searchPoolFrom: Infinity,
  });
  return { sites, parts, reporter, failures };
}

/** The data directory holds the website's catalog (a snapshot without hierarchies). */
async function catalogOnDisk(): Promise<void> {
  const engine = await createEngine({ dataDir, workers: 0, websites: [site] });
  await engine.replaceProducts('shop', products);
  await engine.close();
}

/** The catalog's current version holds `CATEGORIES`' hierarchy, equal to one derived from scratch. */
function expectHierarchyDerived(state: WebsiteState): void {
  const catalog = state.catalog.state;
  expect(catalog.index.docCount).toBe(products.length);
  expect(derivedHierarchies(catalog).map((h) => h.setting)).toContainEqual(CATEGORIES);
  const kept = hierarchyOf(catalog, CATEGORIES);
  const fresh = buildHierarchy(catalog, CATEGORIES);
  expect([...kept.column.codes]).toEqual([...fresh.column.codes]);
}

describe('addWebsite', () => {
  it('derives a new website\'s hierarchies before it resolves', async () => {
    await catalogOnDisk();
    const { sites, parts, reporter } = await started([]);
    try {
      await addWebsite({ sites, opener: parts.opener, events: parts.events, settings: parts.settings, searchLog: parts.searchLog }, withHierarchy);
      expectHierarchyDerived(sites.get('shop')!);
    } finally {
      await shutDown(parts, sites, undefined, reporter);
    }
  });

  it('derives the hierarchies a re-configured website\'s new config adds before it resolves', async () => {
    await catalogOnDisk();
    const { sites, parts, reporter } = await started([site]);
    try {
      expect(derivedHierarchies(sites.get('shop')!.catalog.state)).toEqual([]);
      await addWebsite({ sites, opener: parts.opener, events: parts.events, settings: parts.settings, searchLog: parts.searchLog }, withHierarchy);
      expect(sites.get('shop')!.config.settings).toEqual(withHierarchy.settings);
      expectHierarchyDerived(sites.get('shop')!);
    } finally {
      await shutDown(parts, sites, undefined, reporter);
    }
  });
});

describe('background failures of a website\'s catalog', () => {
  it('reports a hierarchy derivation that failed after a settings change as an index-build failure, not a process warning', async () => {
    const { sites, parts, reporter, failures } = await started([site]);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      // A fault injected in the derivation itself (no product data makes it fail).
      sites.get('shop')!.catalog.deriveHierarchies = () => Promise.reject(new Error('derivation failed'));
      await parts.settings.update('shop', { hierarchies: { categories: CATEGORIES } }, true);
      await new Promise((resolve) => setImmediate(resolve));
      expect(failures).toEqual([{ task: 'index-build', websiteId: 'shop' }]);
      expect(reporter.lastFailure('index-build')?.message).toMatch(/deriving the hierarchies.*derivation failed/);
      expect(reporter.failureCounts()['index-build']).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await shutDown(parts, sites, undefined, reporter);
    }
  });

  it('reports a catalog version listener that threw as an index-build failure of its website', async () => {
    const { sites, parts, reporter, failures } = await started([site]);
    try {
      const catalog = sites.get('shop')!.catalog;
      catalog.onNewVersion(() => { throw new Error('listener failed'); });
      await catalog.upsert(products.slice(0, 2));
      // The change succeeded all the same.
      expect(catalog.liveCount).toBe(2);
      expect(failures).toEqual([{ task: 'index-build', websiteId: 'shop' }]);
      expect(reporter.lastFailure('index-build')?.message).toBe('a catalog version listener: listener failed');
    } finally {
      await shutDown(parts, sites, undefined, reporter);
    }
  });
});
