import { describe, expect, it } from 'vitest';
import type { HttpError } from '../src/errors.js';
import fc from 'fast-check';
import { compileQueryDecoder, parseQueryString, queryDecoderFor } from '../src/query.js';
import { jsonDepthWithin } from '../src/body.js';
import { MAX_CART_ITEMS } from '@aisle/engine';

describe('recommendation query parameters (decoded by the contract\'s RecommendQuery schema)', () => {
  const decode = queryDecoderFor('RecommendQuery');
  const parse = (q: string) => decode(q, 100);
  it('reads indexed arrays in index order, repeated and [] forms after them', () => {
    expect(parse('items%5B1%5D=b&items%5B0%5D=a&items=c&items[]=d').items).toEqual(['a', 'b', 'c', 'd']);
    expect(parse('items[10]=k&items[2]=c').items).toEqual(['c', 'k']);
  });
  it('reads booleans and count', () => {
    expect(parse('filterOutOfStock=true&count=5')).toEqual({ filterOutOfStock: true, count: 5 });
    expect(parse('filterOutOfStock=0').filterOutOfStock).toBe(false);
    expect(parse('filterOutOfStock=FALSE').filterOutOfStock).toBe(false);
  });
  it('reads names in any case, leaves the caller\'s own (`_…`) unread and refuses other unknown names', () => {
    expect(parse('customerId=c1&_=123&_cb=x')).toEqual({ customerId: 'c1' });
    expect(parse('CustomerID=c1&FILTEROUTOFSTOCK=1&Items[1]=b&items%5B0%5D=a&ITEMS=c')).toEqual({ customerId: 'c1', filterOutOfStock: true, items: ['a', 'b', 'c'] });
    expect(() => parse('customerId=c1&utm_source=mail')).toThrow('query parameter utm_source is not taken here (it takes customerId, productRef, productStyleId, items, filterOutOfStock, count)');
    expect(() => parse('count=1&COUNT=2')).toThrow('query parameter count is given more than once');
  });
  it('refuses malformed values naming the parameter, in the documented words', () => {
    const message = (q: string, maxItems = 100) => {
      try {
        decode(q, maxItems);
      } catch (err) {
        return [(err as HttpError).code, (err as HttpError).message];
      }
      return undefined;
    };
    expect(message('items[a]=x')).toEqual(['QUERY_PARAM_BAD_INDEX', 'query parameter items[a] is not of the form items[<index>]']);
    expect(message('items[0]=x&items[0]=y')).toEqual(['QUERY_PARAM_REPEATED', 'query parameter items[0] is given more than once']);
    expect(message('count=-1')).toEqual(['QUERY_PARAM_NOT_INTEGER', 'query parameter count must be an integer from 1 to 100 (got "-1")']);
    expect(message('count=101')?.[1]).toBe('query parameter count must be an integer from 1 to 100 (got "101")');
    expect(message('filterOutOfStock=yes')).toEqual(['QUERY_PARAM_NOT_BOOLEAN', 'query parameter filterOutOfStock must be true, false, 1 or 0 (got "yes")']);
    expect(message('items=a&items=b&items=c', 2)).toEqual(['QUERY_PARAM_TOO_MANY', 'query parameter items has 3 entries; at most 2 are accepted']);
    // A listener limit above the contract's bound does not raise it: the engine would refuse the cart anyway.
    const cart = Array.from({ length: MAX_CART_ITEMS + 1 }, (_, i) => `items=s${i}`).join('&');
    expect(message(cart, MAX_CART_ITEMS * 10)).toEqual(['QUERY_PARAM_TOO_MANY', `query parameter items has ${MAX_CART_ITEMS + 1} entries; at most ${MAX_CART_ITEMS} are accepted`]);
    expect(message('customerId=a&customerId=b')).toEqual(['QUERY_PARAM_REPEATED', 'query parameter customerId is given more than once']);
  });
  it('refuses a parameter whose value or name is not valid percent-encoding (not read as U+FFFD); the caller\'s own (`_…`) are not read', () => {
    const malformed = (q: string) => {
      try {
        return parse(q);
      } catch (err) {
        return [(err as HttpError).code, (err as HttpError).message];
      }
    };
    expect(malformed('productRef=%E0%A4%A')).toEqual(['QUERY_PARAM_MALFORMED', 'query parameter productRef is not valid percent-encoding']);
    expect(malformed('count=5&items%5B0%5D=a%zz')).toEqual(['QUERY_PARAM_MALFORMED', 'query parameter items[0] is not valid percent-encoding']);
    expect(malformed('customerId=%')).toEqual(['QUERY_PARAM_MALFORMED', 'query parameter customerId is not valid percent-encoding']);
    // Hex digits all right, but not UTF-8 (a truncated sequence); a real U+FFFD sent encoded is taken.
    expect(malformed('productRef=%E0%A4')).toEqual(['QUERY_PARAM_MALFORMED', 'query parameter productRef is not valid percent-encoding']);
    expect(malformed('productRef=a%EF%BF%BDb')).toEqual({ productRef: 'a\uFFFDb' });
    // The caller's own names (cache busters) are not read, however they are encoded; good encodings decode.
    expect(malformed('_utm=50%&productRef=a%20b%2Bc+d&customerId=%F0%9F%98%80')).toEqual({ productRef: 'a b+c d', customerId: '😀' });
    // An unknown name is named as sent, and a badly encoded one is refused as such (not named with U+FFFD).
    expect(malformed('utm_term=50%')).toEqual(['QUERY_PARAM_MALFORMED', 'query parameter utm_term is not valid percent-encoding']);
  });
});

describe('the other query strings of the contract', () => {
  it('requires the declared parameters (an empty value counts as none) and reads enums', () => {
    const coupon = queryDecoderFor('CouponQuery');
    expect(coupon('code=A&client=site-a', 100)).toEqual({ code: 'A', client: 'site-a' });
    expect(() => coupon('client=site-a', 100)).toThrow('query parameter code is required');
    expect(() => coupon('code=A&client=', 100)).toThrow('query parameter client is required');
    const put = queryDecoderFor('ProductsPutQuery');
    expect(put('mode=replace&onError=skip', 100)).toEqual({ mode: 'replace', onError: 'skip' });
    expect(() => put('mode=merge', 100)).toThrow('query parameter mode must be upsert or replace');
    expect(() => queryDecoderFor('ProductsPatchQuery')('mode=replace', 100)).toThrow('query parameter mode must be upsert');
    expect(queryDecoderFor('SearchReportQuery')('limit=7&from=2026-01-01', 100)).toEqual({ limit: 7, from: '2026-01-01' });
  });

  it('refuses, when compiled, a schema a query string cannot carry', () => {
    expect(() => compileQueryDecoder({ properties: { nested: { type: 'object' } } })).toThrow(/nested/);
    expect(() => compileQueryDecoder({ properties: { n: { type: 'integer' } } })).toThrow(/minimum and maximum/);
  });
});

describe('JSON depth scan', () => {
  it('counts nesting outside strings only', () => {
    expect(jsonDepthWithin('{"a":[[1]]}', 3)).toBe(true);
    expect(jsonDepthWithin('{"a":[[[1]]]}', 3)).toBe(false);
    expect(jsonDepthWithin('{"a":"[[[[[\\"[[["}', 1)).toBe(true);
  });
});

describe('decoded queries remembered', () => {
  const decode = queryDecoderFor('RecommendQuery');
  it('share frozen parameters per query string and bound, and refuse a bad query every time', () => {
    const first = decode('count=4&items[0]=a', 100);
    expect(decode('count=4&items[0]=a', 100)).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.items)).toBe(true);
    expect(first).toEqual({ count: 4, items: ['a'] });
    // Another listener's bound decodes anew, under its own bound.
    expect(() => decode('items[0]=a&items[1]=b', 1)).toThrow('query parameter items has 2 entries');
    expect(decode('items[0]=a&items[1]=b', 100).items).toEqual(['a', 'b']);
    expect(() => decode('count=x', 100)).toThrow(/count/);
    expect(() => decode('count=x', 100)).toThrow(/count/);
  });
});

describe('parseQueryString', () => {
  /** What URLSearchParams reads, in the same shape: every name with its values in order. */
  const reference = (query: string) => {
    const out = new Map<string, string[]>();
    for (const [name, value] of new URLSearchParams(query)) out.set(name, [...(out.get(name) ?? []), value]);
    return out;
  };
  it('reads what URLSearchParams reads, with and without anything to decode', () => {
    for (const query of ['', '&', '&&a=1&&', 'a', 'a=', '=1', '=', 'a=1=2', 'a=1&a=2&b', 'count=3', 'x=%41%2B+b', 'a+b=c+d', 'ü=ß&ü=x', '?a=1', '??a=1', '?', '?&a']) {
      expect(parseQueryString(query)).toEqual(reference(query));
    }
    const piece = fc.constantFrom('a', 'b', 'count', '=', '&', '%', '%41', '+', 'ü', '[0]', '_', '?', '');
    fc.assert(fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
      const query = pieces.join('');
      expect(parseQueryString(query)).toEqual(reference(query));
    }), { numRuns: 2000 });
  });
});
