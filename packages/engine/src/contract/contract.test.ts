import { describe, expect, it } from 'vitest';
import { AisleError, ErrorCodes, fieldError, isAisleError } from '../errors.js';
import { EngineOptionsSchema } from './config-schema.js';
import { formatError, problemPath } from './errors.js';
import { MAX_BUNDLE_COUNT, MAX_SEARCH_SIZE, MAX_SET_COUNT } from './limits.js';
import { inlineRefs, schemas, ScopeConditionSchema } from './schemas.js';
import { WEBSITE_SETTINGS_KEYS, WebsiteSettingsSchema } from './settings-schema.js';
import { checkAgainst, type FailAt } from './validate.js';

/** Runs a check and answers `path: problem` of its failure, or undefined when the value passes. */
function failureOf(schema: Parameters<typeof checkAgainst>[0], value: unknown, root = ''): string | undefined {
  const fail: FailAt = (path, problem) => {
    throw new Error(`${path}: ${problem}`);
  };
  try {
    checkAgainst(schema, value, fail, { root, self: '(body)' });
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
}

describe('contract schemas', () => {
  it('take their limits from the constants', () => {
    const search = inlineRefs(schemas.SearchRequest) as { properties: { size: { maximum: number } } };
    expect(search.properties.size.maximum).toBe(MAX_SEARCH_SIZE);
    const bundle = schemas.BundleRequest.properties;
    expect(bundle.setCount.maximum).toBe(MAX_SET_COUNT);
    expect(bundle.product_ref_ids.maxItems).toBe(MAX_BUNDLE_COUNT);
  });

  it('resolve every component reference', () => {
    for (const schema of Object.values(schemas)) expect(JSON.stringify(inlineRefs(schema))).not.toContain('$ref');
  });

  it('read the known settings keys from the settings schema', () => {
    expect(WEBSITE_SETTINGS_KEYS).toEqual(Object.keys(WebsiteSettingsSchema.properties));
    expect(failureOf(WebsiteSettingsSchema, { colour: 1 }, 'settings')).toMatch(/^settings\.colour: is not a known key \(known: personalization, /);
  });

  it('accept a purchase decimal as a number or a decimal string, not as other text', () => {
    const line = { refId: 'a', quantity: 1 };
    expect(failureOf('PurchaseProduct', { ...line, price: 12.5 })).toBeUndefined();
    expect(failureOf('PurchaseProduct', { ...line, price: '12.50' })).toBeUndefined();
    expect(failureOf('PurchaseProduct', { ...line, price: 'twelve' })).toMatch(/^price: /);
  });
});

describe('describing a failure', () => {
  const base = { website_id: 'w', client: 'c', q: '', start: 0 };

  it('names the path as on the wire', () => {
    expect(failureOf('SearchRequest', { ...base, sort_fields: [{ price: { order: 'up', type: 'number' } }] }))
      .toBe('sort_fields[0].price.order: must be one of "asc", "desc"');
    expect(failureOf('SearchRequest', { ...base, start: undefined })).toBe('start: is required');
    expect(failureOf('SearchRequest', null)).toBe('(body): must be an object');
  });

  it('words a bound on keys as the schema sets it: exactly only where the count is pinned', () => {
    expect(failureOf('SearchRequest', { ...base, sort_fields: [{}] })).toBe('sort_fields[0]: must have exactly one key');
    const experiment = (recommendations: object) => ({ name: 'x', kind: 'recommendations', variants: [{ name: 'a' }, { name: 'b', recommendations }] });
    // It said "must have exactly one key", and a variant may name several methods.
    expect(failureOf('ExperimentRequest', experiment({}))).toBe('variants[1].recommendations: must have at least one key');
    const eighteen = Object.fromEntries(Array.from({ length: 18 }, (_, i) => [`M${i}`, { tactics: ['Popular Items'] }]));
    expect(failureOf('ExperimentRequest', experiment(eighteen))).toBe('variants[1].recommendations: must have at most 17 keys');
  });

  it('lets the union branch that got furthest speak, and lists the forms when none fits', () => {
    expect(failureOf('SearchRequest', { ...base, scope: { price: { min: '1' } } })).toBe('scope.price.min: must be a number');
    expect(failureOf('SearchRequest', { ...base, scope: { brand: ['a', 2] } })).toBe('scope.brand[1]: must be a string');
    // The forms are listed as the condition schema describes them (one description per operator set).
    expect(failureOf('SearchRequest', { ...base, scope: { brand: 'a' } })).toBe(`scope.brand: must be ${ScopeConditionSchema.description}`);
    expect(ScopeConditionSchema.description).toMatch(/^an array of strings \(text field: any of them\), \{not: \[strings\]\}, \{all: \[strings\], any\?: \[strings\], not\?: \[strings\]\} .*\{min\?, max\?, not\?: \[numbers\]\}/);
    // The AND form: a malformed one is reported against it.
    expect(failureOf('SearchRequest', { ...base, scope: { tags: { all: ['a', 2] } } })).toBe('scope.tags.all[1]: must be a string');
    expect(failureOf('SearchRequest', { ...base, scope: { brand: { exists: 'yes' } } })).toBe('scope.brand.exists: must be true or false');
  });

  it('reports a store by the form its type names', () => {
    expect(failureOf(EngineOptionsSchema, { store: { type: 'postgres' } })).toBe('store.url: is required');
    expect(failureOf(EngineOptionsSchema, { store: { type: 'mysql' } })).toBe('store.type: must be one of "embedded", "postgres", "memory"');
    expect(failureOf(EngineOptionsSchema, { store: { type: 'memory' } })).toBeUndefined();
  });

  it('refuses non-finite numbers a library caller can pass', () => {
    expect(failureOf('SearchRequest', { ...base, scope: { price: { max: Infinity } } })).toBe('scope.price.max: must be a number');
  });
});

describe('errors', () => {
  it('words a field error from the table and keys it by its path', () => {
    const err = fieldError('SEARCH_BAD_REQUEST', 'q', 'must be a string');
    expect(err).toBeInstanceOf(AisleError);
    expect(err.message).toBe('search request: q must be a string');
    expect(err.details).toEqual({ key: 'q', problem: 'must be a string' });
    expect(err.status).toBe(ErrorCodes.SEARCH_BAD_REQUEST.status);
    expect(fieldError('RECOMMEND_BAD_PARAMS', 'count', 'must be at most 100').message).toBe('count must be at most 100');
    expect(isAisleError(fieldError('KEY_BAD_REQUEST', 'actions', 'is required'))).toBe(true);
  });

  it('formats both wire bodies from the same facts', () => {
    const facts = { status: 404, key: 'events[0].products', message: 'Unknown website "w".' };
    expect(formatError('envelope', facts)).toEqual({ type: -1, code: 404, message: 'Unknown website "w".' });
    const problem = formatError('problem', facts, '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(problem).toEqual({
      type: 'https://tools.ietf.org/html/rfc9110#section-15.5.5', title: 'Not Found', status: 404,
      errors: { 'events[0].Products': ['Unknown website "w".'] }, traceId: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(problemPath('coupons[0].code')).toBe('coupons[0].Code');
  });
});
