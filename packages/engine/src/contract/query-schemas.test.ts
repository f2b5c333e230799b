import { describe, expect, it } from 'vitest';
import { MAX_COUNT, SEARCH_REPORT_LIMITS } from './limits.js';
import { querySchemas, readReportTimes, RecommendQuerySchema } from './query-schemas.js';
import { checkAgainst, type FailAt } from './validate.js';

const failAt: FailAt = (path, problem) => {
  throw new Error(`${path} ${problem}`);
};

describe('query-string schemas', () => {
  it('declare only what a query string carries: flat strings, bounded integers, booleans, string arrays', () => {
    for (const [name, schema] of Object.entries(querySchemas)) {
      for (const [param, property] of Object.entries(schema.properties as Record<string, { type?: string; minimum?: number; maximum?: number; items?: { type?: string } }>)) {
        expect(['string', 'integer', 'boolean', 'array'], `${name}.${param}`).toContain(property.type);
        if (property.type === 'integer') expect([property.minimum, property.maximum].every(Number.isFinite), `${name}.${param} bounds`).toBe(true);
        if (property.type === 'array') expect(property.items?.type, `${name}.${param} items`).toBe('string');
      }
    }
  });

  it('bound the recommendation count and the report limit by the contract\'s limits', () => {
    expect(() => checkAgainst(RecommendQuerySchema, { count: MAX_COUNT + 1 }, failAt)).toThrow(`count must be at most ${MAX_COUNT}`);
    expect(checkAgainst(RecommendQuerySchema, { count: MAX_COUNT, items: ['a'], filterOutOfStock: false }, failAt)).toMatchObject({ count: MAX_COUNT });
    expect(() => checkAgainst(querySchemas.SearchReportQuery, { limit: SEARCH_REPORT_LIMITS.max + 1 }, failAt)).toThrow('limit must be at most');
  });
});

describe('readReportTimes', () => {
  it('reads both times, leaves absent ones out, and words an unreadable one under its name', () => {
    expect(readReportTimes({})).toEqual({ errors: {} });
    expect(readReportTimes({ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' })).toEqual({
      fromMs: Date.UTC(2026, 0, 1), toMs: Date.UTC(2026, 0, 2), errors: {},
    });
    expect(readReportTimes({ from: 'yesterday', to: 'soon' }).errors).toEqual({
      from: ['The from parameter must be an ISO 8601 date-time.'], to: ['The to parameter must be an ISO 8601 date-time.'],
    });
  });

  it('refuses a window whose to is before its from (an equal pair is one instant)', () => {
    expect(readReportTimes({ from: '2026-12-01T00:00:00Z', to: '2026-11-01T00:00:00Z' }).errors).toEqual({ to: ['The to parameter must not be before from.'] });
    expect(readReportTimes({ from: '2026-12-01T00:00:00Z', to: '2026-12-01T00:00:00Z' }).errors).toEqual({});
  });
});
