import { describe, expect, it } from 'vitest';
import { AisleError } from '../errors.js';
import { MAX_QUERY_LENGTH, MAX_SEARCH_SIZE, validateSearchRequest } from './validate-search-request.js';

const base = { website_id: 'site', client: 'cl', q: 'shirt', start: 0 };

function failure(body: unknown): AisleError {
  try {
    validateSearchRequest(body);
  } catch (err) {
    expect(err).toBeInstanceOf(AisleError);
    expect((err as AisleError).code).toBe('SEARCH_BAD_REQUEST');
    expect((err as AisleError).status).toBe(400);
    return err as AisleError;
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

describe('validateSearchRequest', () => {
  it('takes range_buckets of strictly ascending finite numbers, and names the bound that is not', () => {
    expect(validateSearchRequest({ ...base, range_buckets: { price: [10, 12.5, 100] } }).range_buckets).toEqual({ price: [10, 12.5, 100] });
    expect(failure({ ...base, range_buckets: { price: [10, 10] } }).message).toBe('search request: range_buckets.price[1] must be greater than the bound before it (10): bounds ascend');
    expect(failure({ ...base, range_buckets: { price: [5, 1] } }).message).toMatch(/^search request: range_buckets\.price\[1\] /);
    expect(failure({ ...base, range_buckets: { price: [] } }).message).toMatch(/range_buckets\.price/);
    expect(failure({ ...base, range_buckets: { price: ['10'] } }).message).toMatch(/range_buckets\.price\[0\]/);
    expect(failure({ ...base, range_buckets: { price: 10 } }).message).toMatch(/range_buckets\.price/);
  });
  it('accepts the documented body and defaults size to 20', () => {
    expect(validateSearchRequest(base)).toEqual({ ...base, size: 20 });
  });
  it('keeps every documented field, drops the caller\'s own (`_…`) and refuses other unknown top-level fields', () => {
    expect(() => validateSearchRequest({ ...base, filters: 'brand:A' })).toThrow(/filters is not a known key/);
    const body = {
      ...base, size: 0, customer_id: 'c1', _extra: { anything: true },
      scope: { brand: ['A'], price: { min: 1, max: 2 }, availability: { not: [0] }, color: { not: ['red'] }, rating: {} },
      aggregations: ['brand'], range_fields: ['price'], sort_fields: [{ price: { order: 'asc', type: 'number' } }],
    };
    const { _extra, ...expected } = body;
    expect(validateSearchRequest(body)).toEqual(expected);
  });
  it.each([
    [null, '(body)'], [[], '(body)'], ['x', '(body)'],
    [{ ...base, website_id: undefined }, 'website_id'], [{ ...base, website_id: 3 }, 'website_id'],
    [{ ...base, client: undefined }, 'client'], [{ ...base, q: undefined }, 'q'], [{ ...base, q: null }, 'q'],
    [{ ...base, q: 'x'.repeat(MAX_QUERY_LENGTH + 1) }, 'q'],
    [{ ...base, start: undefined }, 'start'], [{ ...base, start: -1 }, 'start'], [{ ...base, start: 1.5 }, 'start'], [{ ...base, start: '0' }, 'start'],
    [{ ...base, size: -1 }, 'size'], [{ ...base, size: 2.5 }, 'size'], [{ ...base, size: MAX_SEARCH_SIZE + 1 }, 'size'], [{ ...base, size: '10' }, 'size'],
    [{ ...base, customer_id: 5 }, 'customer_id'],
    [{ ...base, scope: [] }, 'scope'], [{ ...base, scope: 'brand' }, 'scope'],
    [{ ...base, scope: { brand: 'A' } }, 'scope.brand'], [{ ...base, scope: { brand: [1] } }, 'scope.brand[0]'],
    [{ ...base, scope: { price: { min: '1' } } }, 'scope.price.min'], [{ ...base, scope: { price: { max: Infinity } } }, 'scope.price.max'],
    [{ ...base, scope: { price: { between: [1, 2] } } }, 'scope.price.between'],
    [{ ...base, scope: { price: { not: 3 } } }, 'scope.price.not'], [{ ...base, scope: { price: { not: [1, 'a'] } } }, 'scope.price.not[1]'],
    [{ ...base, scope: { price: { min: 1, not: ['a'] } } }, 'scope.price.not[0]'],
    [{ ...base, aggregations: 'brand' }, 'aggregations'], [{ ...base, aggregations: [1] }, 'aggregations[0]'],
    [{ ...base, aggregations: Array(101).fill('a') }, 'aggregations'],
    [{ ...base, range_fields: {} }, 'range_fields'], [{ ...base, range_fields: [null] }, 'range_fields[0]'],
    [{ ...base, sort_fields: {} }, 'sort_fields'], [{ ...base, sort_fields: ['price'] }, 'sort_fields[0]'],
    [{ ...base, sort_fields: [{ price: { order: 'up', type: 'number' } }] }, 'sort_fields[0].price.order'],
    [{ ...base, sort_fields: [{ price: { order: 'asc', type: 'date' } }] }, 'sort_fields[0].price.type'],
    [{ ...base, sort_fields: [{ price: { order: 'asc' } }] }, 'sort_fields[0].price.type'],
    [{ ...base, sort_fields: [{ a: { order: 'asc', type: 'text' }, b: { order: 'asc', type: 'text' } }] }, 'sort_fields[0]'],
    [{ ...base, sort_fields: [{ price: 'asc' }] }, 'sort_fields[0].price'],
  ])('rejects %j naming %s', (body, field) => {
    const err = failure(body);
    expect(err.message).toContain(field);
    expect(err.details?.key).toBe(field);
  });
});

const storedBody = (extra: Record<string, unknown>) => ({ website_id: 'w', client: 'c', q: 'shirt', start: 0, ...extra });

describe('validateSearchRequest: what a search stores', () => {
  // The query and the ids go into the search log and the result lists: a SQL store refuses NUL, and one
  // such search must not fail the whole analytics batch of other shoppers.
  it('refuses NUL and unpaired surrogates in q, customer_id and session_id, and ids past the id limit', () => {
    for (const [key, value] of [['q', 'a\u0000b'], ['customer_id', 'c\u0000'], ['session_id', '\uD800x'], ['customer_id', 'x'.repeat(257)]] as const) {
      expect(() => validateSearchRequest(storedBody({ [key]: value })), key).toThrow(new RegExp(key));
    }
    expect(() => validateSearchRequest(storedBody({ q: 'émoji 😀', customer_id: '', session_id: 's-ü' }))).not.toThrow();
  });
});
