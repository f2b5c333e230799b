import { describe, expect, it } from 'vitest';
import { MAX_BULK_DELETE_REFIDS } from '../../contract/limits.js';
import { parseBulkDeleteRequest } from './bulk-delete-request.js';

const refusal = (body: unknown) => {
  try {
    parseBulkDeleteRequest(body);
  } catch (err) {
    return { code: (err as { code: string }).code, message: (err as Error).message, key: (err as { details: { key: string } }).details.key };
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
};

describe('parseBulkDeleteRequest', () => {
  it('takes refIds (duplicates once, any length) or a scope', () => {
    expect(parseBulkDeleteRequest({ refIds: ['a', 'b', 'a', 'x'.repeat(1000)] })).toEqual({ refIds: ['a', 'b', 'x'.repeat(1000)] });
    expect(parseBulkDeleteRequest({ scope: { brand: ['Acme'], price: { max: 5 } } })).toEqual({ scope: { brand: ['Acme'], price: { max: 5 } } });
    expect(parseBulkDeleteRequest({ refIds: Array.from({ length: MAX_BULK_DELETE_REFIDS }, (_, i) => `p${i}`) })).toMatchObject({ refIds: { length: MAX_BULK_DELETE_REFIDS } });
  });

  it('refuses what would delete nothing or everything by mistake, naming the key', () => {
    expect(refusal({})).toEqual({ code: 'CATALOG_BAD_INPUT', key: '$', message: 'catalog: the body needs refIds (a list of refIds) or scope (the products to delete)' });
    expect(refusal({ refIds: ['a'], scope: { brand: ['A'] } })).toMatchObject({ key: '$', message: 'catalog: the body takes refIds or scope, not both' });
    expect(refusal({ refIds: [] })).toMatchObject({ key: 'refIds' });
    expect(refusal({ scope: {} })).toMatchObject({ key: 'scope', message: 'catalog: scope must name at least one field: an empty scope would select every product' });
    expect(refusal({ refIds: Array(MAX_BULK_DELETE_REFIDS + 1).fill('p') })).toMatchObject({ key: 'refIds' });
    expect(refusal({ refIds: [''] })).toMatchObject({ key: 'refIds[0]' });
    expect(refusal({ ids: ['a'] })).toMatchObject({ key: 'ids' });
    expect(refusal({ scope: { price: { min: 'cheap' } } })).toMatchObject({ key: 'scope.price.min' });
    expect(refusal([])).toMatchObject({ key: '$' });
  });
});
