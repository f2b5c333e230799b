import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EVENT_FORMATS, parseIsoDateTime } from './formats.js';
import { arrayBounds, SETTINGS_MAX_ARRAY_ITEMS, WebsiteSettingsSchema } from './settings-schema.js';

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

/** The reference: the calendar as `Date` knows it (a day that does not exist rolls over into the next month). */
function reference(y: number, mo: number, d: number, h: number, mi: number, s: number): number | undefined {
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  return new Date(ms).getUTCDate() === d && mo >= 1 && mo <= 12 ? ms : undefined;
}

describe('parseIsoDateTime', () => {
  it('accepts exactly the calendar days Date knows, leap years included', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1970, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }),
      fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 }),
      (y, mo, d, h, mi, s) => {
        const text = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}Z`;
        expect(parseIsoDateTime(text)).toBe(d === 0 ? undefined : reference(y, mo, d, h, mi, s));
      },
    ), { numRuns: 5000 });
  });

  it('reads the century rules of February', () => {
    expect(parseIsoDateTime('2000-02-29T00:00:00Z')).toBe(Date.UTC(2000, 1, 29));
    expect(parseIsoDateTime('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29));
    expect(parseIsoDateTime('2100-02-29T00:00:00Z')).toBeUndefined();
    expect(parseIsoDateTime('2023-02-29T00:00:00Z')).toBeUndefined();
    expect(parseIsoDateTime('2023-04-31T00:00:00Z')).toBeUndefined();
  });

  it('applies zone offsets and fractions', () => {
    expect(parseIsoDateTime('2024-05-01T12:00:00+02:00')).toBe(Date.UTC(2024, 4, 1, 10));
    expect(parseIsoDateTime('2024-05-01T12:00:00.1234-0130')).toBe(Date.UTC(2024, 4, 1, 13, 30, 0, 123));
    expect(parseIsoDateTime('2024-05-01T12:00:00+24:00')).toBeUndefined();
    expect(parseIsoDateTime('1969-12-31T23:59:59Z')).toBeUndefined();
  });

  it('refuses a time without a zone (it names a different instant on every sender\'s clock)', () => {
    expect(parseIsoDateTime('2024-05-01T12:00:00')).toBeUndefined();
    expect(parseIsoDateTime('2024-05-01T12:00')).toBeUndefined();
    expect(parseIsoDateTime('2024-05-01T12:00:00.5')).toBeUndefined();
    expect(parseIsoDateTime('2024-05-01T12:00:00z')).toBe(Date.UTC(2024, 4, 1, 12));
  });
});

describe('web-url and web-origin (settings)', () => {
  const url = EVENT_FORMATS['web-url'].validate;
  const origin = EVENT_FORMATS['web-origin'].validate;
  it('takes http(s) URLs and site paths, nothing a browser would run or send elsewhere', () => {
    for (const ok of ['https://shop.example/sale', 'http://localhost:8080/x?y=1#z', '/sale', '/', '/a/b?c=d']) expect(url(ok)).toBe(true);
    for (const bad of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'data:text/html,x', '//evil.example', '/\\evil.example', 'not a url', 'ftp://x.example', 'https://', 'sale', ' https://x.example', `https://x.example/${'a'.repeat(3000)}`]) {
      expect(url(bad)).toBe(false);
    }
  });
  it('takes "*" and bare origins only', () => {
    for (const ok of ['*', 'https://shop.example', 'http://localhost:8080', 'https://[::1]:3000']) expect(origin(ok)).toBe(true);
    for (const bad of ['https://shop.example/', 'https://shop.example/x', 'shop.example', 'not a url', 'null', 'https://SHOP.example', 'javascript:alert(1)']) expect(origin(bad)).toBe(false);
  });
});

describe('settings schema bounds', () => {
  it('bounds every array of a settings body (the settings endpoint reads its body with the largest bound)', () => {
    const bounds = arrayBounds(WebsiteSettingsSchema);
    expect(bounds.length).toBeGreaterThan(10);
    expect(bounds.filter((b) => !Number.isFinite(b))).toEqual([]);
    expect(SETTINGS_MAX_ARRAY_ITEMS).toBe(Math.max(...bounds));
  });
});
