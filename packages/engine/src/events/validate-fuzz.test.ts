import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.js';
import { buildAttributionReport, isAttributedLine } from './attribution.js';
import { EventService } from './event-service.js';
import { validatePurchaseRequest } from './validate-purchases.js';
import { validateViewRequest } from './validate-views.js';
import { RecordingSink, WEBSITE, event, product, purchaseBody, signedRetailMedia, viewBody } from './__tests__/fixtures.js';

/** Only a ValidationError may escape, and it must carry well-formed problem details. */
function expectValidationOnly(fn: () => unknown): boolean {
  try {
    fn();
    return true;
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    const p = (err as ValidationError).problem;
    expect(p.status).toBe(400);
    expect(Object.keys(p.errors).length).toBeGreaterThan(0);
    for (const messages of Object.values(p.errors)) expect(messages.every((m) => typeof m === 'string' && m.length > 0)).toBe(true);
    return false;
  }
}

const validBody = purchaseBody([
  event('o-1', { paymentMethod: 'card', currencyCode: 'EUR', priceBeatPromotions: [{ code: 'PB', discount: 1 }], products: [product(), product({ refId: 'rm', ...signedRetailMedia() })] }),
  event('o-2', { products: [product({ retailBoost: { retailBoostCollectionCampaignId: '66666666-6666-4666-8666-666666666666' } })] }),
]);

/** Every path to a value inside a JSON document. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...prefix, i])));
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  return out;
}

function mutate(doc: unknown, path: (string | number)[], action: 'delete' | 'replace', replacement: unknown): unknown {
  if (path.length === 0) return action === 'delete' ? undefined : replacement;
  const copy = structuredClone(doc) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (action === 'delete') {
    if (Array.isArray(node)) node.splice(last as number, 1);
    else delete node[last];
  } else node[last] = replacement;
  return copy;
}

const allPaths = paths(validBody);
const jsonish = fc.oneof(fc.jsonValue(), fc.string(), fc.constantFrom('', ' ', null, -1, 0, 1.5, 1e309, '2024-05-01T12:00:00Z', 'ab\u0000', '\uD800', 'x'.repeat(5000)));

describe('validation fuzz', () => {
  it('never throws anything but ValidationError on random bodies', () => {
    fc.assert(fc.property(fc.anything(), (body) => {
      expectValidationOnly(() => validatePurchaseRequest(body));
      expectValidationOnly(() => validateViewRequest(body));
    }), { numRuns: 250 });
  });

  it('never throws anything but ValidationError on mutated valid bodies', () => {
    expect(expectValidationOnly(() => validatePurchaseRequest(validBody))).toBe(true);
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.nat(allPaths.length - 1), fc.constantFrom('delete' as const, 'replace' as const), jsonish), { minLength: 1, maxLength: 4 }),
      (mutations) => {
        let body: unknown = validBody;
        for (const [i, action, replacement] of mutations) {
          try {
            body = mutate(body, allPaths[i]!, action, replacement);
          } catch {
            /* the path vanished under an earlier mutation */
          }
        }
        expectValidationOnly(() => validatePurchaseRequest(body));
      },
    ), { numRuns: 600 });
    fc.assert(fc.property(fc.nat(paths(viewBody(['a', 'b'])).length - 1), jsonish, (i, replacement) => {
      const vb = viewBody(['a', 'b']);
      expectValidationOnly(() => validateViewRequest(mutate(vb, paths(vb)[i]!, 'replace', replacement)));
    }), { numRuns: 300 });
  });

  it('stores either a whole request or nothing', async () => {
    const service = await EventService.open({ websites: [WEBSITE], sink: new RecordingSink() });
    try {
      let n = 0;
      await fc.assert(fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(allPaths.length - 1), jsonish), { maxLength: 2 }),
        async (mutations) => {
          n++;
          // Fresh order ids per run so every accepted request adds its orders.
          let body = structuredClone(validBody) as { events: { orderId: string }[] };
          body.events[0]!.orderId = `a-${n}`;
          body.events[1]!.orderId = `b-${n}`;
          for (const [i, replacement] of mutations) {
            try {
              body = mutate(body, allPaths[i]!, 'replace', replacement) as typeof body;
            } catch { /* ignore */ }
          }
          const before = (await service.counts('site-a')).orders;
          let accepted = true;
          try {
            await service.recordPurchases('site-a', body);
          } catch (err) {
            expect(err).toBeInstanceOf(ValidationError);
            accepted = false;
          }
          const after = (await service.counts('site-a')).orders;
          const expected = accepted ? (Array.isArray(body?.events) ? new Set(body.events.map((e) => e.orderId)).size : 0) : 0;
          expect(after - before).toBe(expected);
        },
      ), { numRuns: 300 });
    } finally {
      await service.close();
    }
  });
});

describe('attribution maths', () => {
  const guid = fc.constantFrom('11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222');
  const productArb = fc.record({
    refId: fc.constantFrom('a', 'b', 'c'),
    quantity: fc.integer({ min: 1, max: 20 }),
    price: fc.integer({ min: 0, max: 100_000 }).map((c) => c / 100),
    recommenderId: fc.option(guid, { nil: undefined }),
    widgetId: fc.option(guid, { nil: undefined }),
    atsModel: fc.option(fc.constantFrom('m1', 'm2'), { nil: undefined }),
  }, { requiredKeys: ['refId', 'quantity', 'price'] });
  const eventArb = fc.record({
    orderId: fc.uuid(),
    tacticId: fc.option(guid, { nil: undefined }),
    products: fc.array(productArb, { minLength: 1, maxLength: 6 }),
  }, { requiredKeys: ['orderId', 'products'] });

  it('attributed revenue equals the sum over attributed product lines, and totals add up', () => {
    fc.assert(fc.property(fc.array(eventArb, { maxLength: 20 }), (raw) => {
      const events = raw.map((e) => ({ ...e, currentUrl: 'u', eventTime: 't', eventTimeMs: 0, priceBeatPromotions: [] }));
      const report = buildAttributionReport('w', events);
      let attributed = 0;
      let total = 0;
      let units = 0;
      for (const e of events) for (const p of e.products) {
        total += p.price * p.quantity;
        units += p.quantity;
        if (isAttributedLine(e, p)) attributed += p.price * p.quantity;
      }
      expect(report.totals.attributedRevenue).toBeCloseTo(attributed, 6);
      expect(report.totals.revenue).toBeCloseTo(total, 6);
      expect(report.totals.units).toBe(units);
      expect(report.totals.orders).toBe(events.length);
      // Each dimension's lines never exceed the attributed revenue, and recommender lines sum exactly.
      const recommenderSum = report.byRecommender.reduce((s, l) => s + l.revenue, 0);
      const expectedRecommender = events.flatMap((e) => e.products.filter((p) => p.recommenderId !== undefined)).reduce((s, p) => s + p.price * p.quantity, 0);
      expect(recommenderSum).toBeCloseTo(expectedRecommender, 6);
      for (const table of [report.byRecommender, report.byWidget, report.byTactic, report.byAtsModel]) {
        expect(table.reduce((s, l) => s + l.revenue, 0)).toBeLessThanOrEqual(report.totals.attributedRevenue + 1e-6);
      }
    }), { numRuns: 300 });
  });
});
