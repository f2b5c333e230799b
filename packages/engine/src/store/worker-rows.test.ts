/**
 * Rows in runs (worker-rows.ts) come back as they went, in order, after the structured clone the
 * worker's messages go through; rows that share their repeated fields share one run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LoggedResponse, ResultPageRecord } from './store.js';
import { loggedResponseRuns, loggedResponsesOfRuns, resultPageRuns, resultPagesOfRuns, workerAnalyticsBatch } from './worker-rows.js';

const few = <T>(...values: T[]) => fc.constantFrom(...values);

const pageArb: fc.Arbitrary<ResultPageRecord> = fc.record({
  websiteId: few('w1', 'w2'),
  queryId: fc.string({ minLength: 1, maxLength: 12 }),
  kind: few('search' as const, 'recommendation' as const),
  source: few('PopularItems', 'shoes', 'bundle'),
  variant: few(null, 'A', 'B'),
  customerId: few(null, 'c1', 'c2'),
  sessionId: few(null, 's1'),
  firstPosition: few(1, 11),
  refIds: fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }),
  createdAt: fc.nat(),
  experiment: fc.option(fc.record({ id: few('x1', 'x2'), variant: few('A', 'B'), customerId: few('c1', 'c2') }), { nil: undefined }),
}, { requiredKeys: ['websiteId', 'queryId', 'kind', 'source', 'variant', 'customerId', 'sessionId', 'firstPosition', 'refIds', 'createdAt'] });

const responseArb: fc.Arbitrary<LoggedResponse> = fc.record({
  websiteId: few('w1', 'w2'),
  queryId: fc.string({ minLength: 1, maxLength: 12 }),
  kind: few('search' as const, 'recommendation' as const),
  at: fc.nat(),
  key: few('PopularItems', 'shoes'),
  countedAs: few(null, 'q0'),
});

describe('worker rows', () => {
  it('give back every result list, in order, after a structured clone', () => {
    fc.assert(fc.property(fc.array(pageArb, { maxLength: 30 }), (pages) => {
      expect([...resultPagesOfRuns(structuredClone(resultPageRuns(pages)))]).toEqual(pages);
    }), { numRuns: 500 });
  });

  it('give back every logged response, in order, after a structured clone', () => {
    fc.assert(fc.property(fc.array(responseArb, { maxLength: 30 }), (responses) => {
      expect(loggedResponsesOfRuns(structuredClone(loggedResponseRuns(responses)))).toEqual(responses);
    }), { numRuns: 500 });
  });

  it('write the repeated fields of a busy website once', () => {
    const pages: ResultPageRecord[] = Array.from({ length: 100 }, (_, i) => ({
      websiteId: 'w1', queryId: `q${i}`, kind: 'recommendation', source: 'PopularItems', variant: null,
      customerId: i % 2 === 0 ? null : `c${i}`, sessionId: null, firstPosition: 1, refIds: ['a', 'b'], createdAt: i,
    }));
    expect(resultPageRuns(pages)).toHaveLength(1);
    const responses: LoggedResponse[] = pages.map((p) => ({ websiteId: p.websiteId, queryId: p.queryId, kind: 'recommendation', at: p.createdAt, key: p.source, countedAs: null }));
    const batch = workerAnalyticsBatch({ responses, rollups: [], outcomes: [], sessions: [] });
    expect(batch.responses).toHaveLength(1);
    expect(loggedResponsesOfRuns(batch.responses)).toEqual(responses);
  });
});
