import { describe, expect, it } from 'vitest';
import { ATTRIBUTE_WEIGHTS, productFeatures } from './attribute-similarity.js';

describe('productFeatures', () => {
  it('extracts weighted category, brand, type, price band, title words and custom attributes', () => {
    const f = productFeatures({
      refId: 'x', title: 'The Red Ceramic Mug', search_category: 'Mugs', categories: ['Home', 'Kitchen', 'Mugs'], brand: 'Acme', type: 'mug',
      price: '12.50', colour: 'Red', attributes: { Material: 'Ceramic' }, description: 'ignored', availability: 3, image_vector: [1],
    });
    expect(f.get('c:mugs')).toBe(ATTRIBUTE_WEIGHTS.category);
    expect(f.get('c:home')).toBeLessThan(f.get('c:kitchen')!);
    expect(f.get('b:acme')).toBe(ATTRIBUTE_WEIGHTS.brand);
    expect(f.get('t:mug')).toBe(ATTRIBUTE_WEIGHTS.type);
    expect(f.get(`p:${Math.floor(Math.log(12.5) / Math.log(1.5))}`)).toBe(ATTRIBUTE_WEIGHTS.priceBand);
    expect(f.get('w:ceramic')).toBe(ATTRIBUTE_WEIGHTS.titleWord);
    expect(f.has('w:the')).toBe(false);
    expect(f.get('a:colour=red')).toBe(ATTRIBUTE_WEIGHTS.customAttribute);
    expect(f.get('a:material=ceramic')).toBe(ATTRIBUTE_WEIGHTS.customAttribute);
    expect([...f.keys()].some((k) => k.includes('ignored') || k.startsWith('a:availability'))).toBe(false);
  });
});
