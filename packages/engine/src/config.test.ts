import { describe, expect, it } from 'vitest';
import { validateEngineOptions } from './config.js';
import { isAisleError } from './errors.js';

const site = { websiteId: 'a', client: 'ca', tokens: ['t-a'], hmacSecret: 's' };

function configError(raw: unknown): string {
  try {
    validateEngineOptions(raw);
  } catch (err) {
    if (isAisleError(err)) {
      expect(err.code).toBe('CONFIG_INVALID');
      return err.message;
    }
    throw err;
  }
  throw new Error('expected a config error');
}

describe('validateEngineOptions', () => {
  it('accepts the documented config shape, settings and each of its keys optional', () => {
    const config = {
      store: { type: 'embedded', path: 'aisle.sqlite' },
      adminTokens: ['adm'],
      websites: [{ ...site, settings: {
        personalization: false, semanticSearch: true, fieldWeights: { title: 3 }, synonyms: [['tv', 'television']],
        redirects: [{ queries: ['help'], url: 'https://shop.example/help' }],
        retailMedia: { adSets: [{ adSetId: '6f9619ff-8b86-d011-b42d-00c04fc964ff', version: 1, products: ['p1'], costPerClick: 0.3 }] },
        retailBoost: { collections: [{ campaignId: '7f9619ff-8b86-d011-b42d-00c04fc964ff', products: ['p2'] }] },
        cors: { origins: ['https://shop.example'] },
      } }, { websiteId: 'b', client: 'cb', tokens: ['t-b'], hmacSecret: 's2' }],
    };
    expect(validateEngineOptions(config)).toBe(config);
    expect(validateEngineOptions({})).toEqual({});
  });

  it('checks fieldRoles and retailMedia.placements, naming the key', () => {
    const ok = (settings: object) => validateEngineOptions({ websites: [{ ...site, settings }] });
    const err = (settings: object) => configError({ websites: [{ ...site, settings }] });
    const adSets = [{ adSetId: '3f2504e0-4f89-41d3-9a0c-0305e82c3301', version: 1, products: ['p1'], costPerClick: 1 }];
    expect(() => ok({ fieldRoles: { category: ['categories'], brand: 'maker', type: 'kind', price: 'cost', attributes: ['height', 'attributes.Material'], ignore: ['sku'] } })).not.toThrow();
    expect(() => ok({ fieldRoles: {}, retailMedia: { adSets, placements: { ProductDetail: 0, Personalized: false } } })).not.toThrow();
    expect(err({ fieldRoles: 'brand' })).toBe('config: websites[0].settings.fieldRoles must be an object');
    expect(err({ fieldRoles: { colour: 'c' } })).toMatch(/^config: websites\[0\]\.settings\.fieldRoles\.colour is not a known key/);
    expect(err({ fieldRoles: { brand: 3 } })).toBe('config: websites[0].settings.fieldRoles.brand must be a string');
    expect(err({ fieldRoles: { attributes: ['ok', ''] } })).toBe('config: websites[0].settings.fieldRoles.attributes[1] must be a non-empty string');
    expect(err({ fieldRoles: { category: [7] } })).toBe('config: websites[0].settings.fieldRoles.category[0] must be a string');
    expect(err({ retailMedia: { adSets, placements: { RecentlyViewed: 1 } } }))
      .toBe("config: websites[0].settings.retailMedia.placements.RecentlyViewed cannot carry a sponsored slot: it lists the customer's own history");
    expect(err({ retailMedia: { adSets, placements: { Nope: 1 } } })).toMatch(/^config: websites\[0\]\.settings\.retailMedia\.placements\.Nope is not a recommendation method/);
    expect(err({ retailMedia: { adSets, placements: { Cart: -1 } } })).toBe('config: websites[0].settings.retailMedia.placements.Cart must be at least 0');
    expect(err({ retailMedia: { adSets, placements: { Cart: true } } })).toBe('config: websites[0].settings.retailMedia.placements.Cart must be an integer, or must be false');
    expect(err({ retailMedia: { adSets, placements: [] } })).toMatch(/placements must be an object/);
    expect(err({ retailMedia: { adSets, slotPositon: 1 } })).toMatch(/retailMedia\.slotPositon is not a known key/);
    // A weight on a field never indexed for full text would change nothing (a weight of 0 asks for nothing).
    expect(err({ fieldWeights: { title: 2, refId: 1 } })).toMatch(/^config: websites\[0\]\.settings\.fieldWeights\.refId is never searched/);
    expect(() => ok({ fieldWeights: { refId: 0, sku: 2 } })).not.toThrow();
    expect(err({ redirects: [{ queries: ['™'], url: '/tm' }] })).toMatch(/^config: websites\[0\]\.settings\.redirects\[0\]\.queries\[0\] has no word to match/);
  });

  it('names the key at fault', () => {
    expect(configError(null)).toMatch(/\(root\)/);
    expect(configError({ store: { type: 'mysql' } })).toMatch(/store\.type/);
    expect(configError({ store: { type: 'postgres' } })).toMatch(/store\.url/);
    expect(configError({ websties: [] })).toMatch(/websties is not a known key/);
    expect(configError({ store: { type: 'embedded', file: 'x' } })).toMatch(/store\.file is not a known key/);
    expect(configError({ store: { type: 'postgres', url: 'postgres://x', pool: 3 } })).toMatch(/store\.pool is not a known key/);
    expect(configError({ workers: -1 })).toMatch(/workers/);
    expect(configError({ adminTokens: [''] })).toMatch(/adminTokens\[0\]/);
    expect(configError({ websites: [{ ...site, client: 3 }] })).toMatch(/websites\[0\]\.client/);
    expect(configError({ websites: [{ ...site, tokn: [] }] })).toMatch(/websites\[0\]\.tokn is not a known key/);
    expect(configError({ websites: [site, { ...site, tokens: ['x'] }] })).toMatch(/websites\[1\]\.websiteId repeats/);
    expect(configError({ websites: [site, { ...site, websiteId: 'b', client: 'client-b' }] })).toMatch(/websites\[1\]\.tokens\[0\].*another website/);
    expect(configError({ websites: [site, { ...site, websiteId: 'b', tokens: ['y'] }] })).toMatch(/websites\[1\]\.client repeats/);
    // Were accepted, and could never open anything (the header is read trimmed, as Latin-1), or ran every timer after 1 ms.
    expect(configError({ websites: [{ ...site, tokens: [' t-a '] }] }))
      .toBe('config: websites[0].tokens[0] must hold only visible ASCII characters, no spaces (it is sent in an Authorization header)');
    expect(configError({ adminTokens: ['adm\u00e9'] })).toMatch(/^config: adminTokens\[0\] must hold only visible ASCII/);
    expect(configError({ store: { type: 'postgres', url: 'postgres://x', pollIntervalMs: 1e12 } })).toBe('config: store.pollIntervalMs must be at most 2147483647');
    expect(configError({ modelCheckpointIntervalMs: 2 ** 31 })).toBe('config: modelCheckpointIntervalMs must be at most 2147483647');
    expect(configError({ semanticRetrainDelayMs: 1e10 })).toMatch(/semanticRetrainDelayMs must be at most/);
    for (const url of ['s3cret', 'postgres://u:s3cret@h:port/db', 'mysql://h/db']) {
      const message = configError({ store: { type: 'postgres', url } });
      expect(message).toMatch(/^config: store\.url must be a PostgreSQL connection URL/);
      expect(message).not.toContain('s3cret');
    }
    for (const url of ['postgres://u:p@h:5432/db?sslmode=require', 'postgresql://h/db', '/var/run/postgresql db']) expect(() => validateEngineOptions({ store: { type: 'postgres', url } })).not.toThrow();
    expect(configError({ store: { type: 'postgres', url: 'postgres://x', schema: 'shop-1' } }))
      .toBe('config: store.schema must be letters, digits and _, not starting with a digit, at most 63 characters');
    // Was accepted: the storefront's token then opened the admin API of every website.
    expect(configError({ adminTokens: ['adm', 't-b'], websites: [site, { ...site, websiteId: 'b', client: 'cb', tokens: ['x', 't-b'] }] }))
      .toBe('config: websites[1].tokens[1] is also an admin token (a website token opens exactly one website, never the admin API)');
    expect(configError({ websites: [site, { ...site, websiteId: 'b', client: site.websiteId, tokens: ['y'] }] })).toMatch(/websites\[1\]\.client .* is the websiteId of websites\[0\]/);
    expect(configError({ websites: [{ ...site, settings: { fieldWeights: { title: 'x' } } }] })).toMatch(/settings\.fieldWeights\.title/);
    expect(configError({ websites: [{ ...site, settings: { retailMedia: { adSets: [{ adSetId: '3f2504e0-4f89-41d3-9a0c-0305e82c3301', version: 1, products: [] }] } } }] }))
      .toMatch(/adSets\[0\] needs at least one of costPerClick/);
    // The slot data hands these ids out and purchases echo them, where the spec types them GUIDs: any
    // other id made every purchase echoing it a 400 (the sale not recorded).
    const ad = { adSetId: '3f2504e0-4f89-41d3-9a0c-0305e82c3301', version: 1, products: ['p1'], costPerClick: 1 };
    expect(configError({ websites: [{ ...site, settings: { retailMedia: { adSets: [{ ...ad, adSetId: 'ad-1' }] } } }] }))
      .toMatch(/settings\.retailMedia\.adSets\[0\]\.adSetId must be a GUID/);
    expect(configError({ websites: [{ ...site, settings: { retailMedia: { adSets: [{ ...ad, bannerId: 'banner-x' }] } } }] }))
      .toMatch(/adSets\[0\]\.bannerId must be a GUID/);
    expect(configError({ websites: [{ ...site, settings: { retailMedia: { adSets: [{ ...ad, placementId: 'top' }] } } }] }))
      .toMatch(/adSets\[0\]\.placementId must be a GUID/);
    expect(configError({ websites: [{ ...site, settings: { retailBoost: { collections: [{ campaignId: 'summer-sale', products: ['p1'] }] } } }] }))
      .toMatch(/settings\.retailBoost\.collections\[0\]\.campaignId must be a GUID/);
    expect(configError({ websites: [{ ...site, settings: { cors: { origins: 'x' } } }] })).toMatch(/settings\.cors\.origins/);
    expect(configError({ websites: [{ ...site, settings: { colour: 1 } }] })).toMatch(/settings\.colour/);
  });
});
