import { describe, expect, it } from 'vitest';
import { parseQueryString, parseRecommendParams } from '../src/query.js';
import { jsonDepthWithin } from '../src/body.js';

describe('recommendation query parameters', () => {
  const parse = (q: string) => parseRecommendParams(parseQueryString(q), 100);
  it('reads indexed arrays in index order, repeated and [] forms after them', () => {
    expect(parse('items%5B1%5D=b&items%5B0%5D=a&items=c&items[]=d').items).toEqual(['a', 'b', 'c', 'd']);
    expect(parse('items[10]=k&items[2]=c').items).toEqual(['c', 'k']);
  });
  it('reads booleans and count', () => {
    expect(parse('filterOutOfStock=true&count=5')).toEqual({ filterOutOfStock: true, count: 5 });
    expect(parse('filterOutOfStock=0').filterOutOfStock).toBe(false);
    expect(parse('filterOutOfStock=FALSE').filterOutOfStock).toBe(false);
  });
  it('ignores unknown names', () => {
    expect(parse('customerId=c1&_=123')).toEqual({ customerId: 'c1' });
  });
  it('refuses malformed values naming the parameter', () => {
    expect(() => parse('items[a]=x')).toThrow(/items\[a\]/);
    expect(() => parse('items[0]=x&items[0]=y')).toThrow(/items\[0\]/);
    expect(() => parse('count=-1')).toThrow(/count/);
    expect(() => parse('filterOutOfStock=yes')).toThrow(/filterOutOfStock/);
    expect(() => parseRecommendParams(parseQueryString('items=a&items=b&items=c'), 2)).toThrow(/at most 2/);
  });
});

describe('JSON depth scan', () => {
  it('counts nesting outside strings only', () => {
    expect(jsonDepthWithin('{"a":[[1]]}', 3)).toBe(true);
    expect(jsonDepthWithin('{"a":[[[1]]]}', 3)).toBe(false);
    expect(jsonDepthWithin('{"a":"[[[[[\\"[[["}', 1)).toBe(true);
  });
});
