import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.js';
import { MAX_LISTED_ERRORS } from './validate-common.js';
import { MAX_EVENTS_PER_REQUEST, MAX_PRODUCTS_PER_EVENT, validatePurchaseRequest } from './validate-purchases.js';
import { AD_SET, BOOST, CUSTOMER, SESSION, event, product, purchaseBody, signedRetailMedia } from './__tests__/fixtures.js';

function errorsOf(body: unknown): Record<string, string[]> {
  try {
    validatePurchaseRequest(body);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    const problem = (err as ValidationError).problem;
    expect(problem).toMatchObject({ type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1', title: 'One or more validation errors occurred.', status: 400 });
    expect(problem.traceId).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    return problem.errors;
  }
  throw new Error('expected a ValidationError');
}

function without(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...obj };
  delete copy[key];
  return copy;
}

describe('validatePurchaseRequest', () => {
  it('accepts the documented body and normalises it', () => {
    const body = purchaseBody([event('o-1', {
      paymentMethod: 'card', currencyCode: 'eur', recommenderId: REC_UPPER,
      products: [product({ price: '12.50', widgetId: '22222222-2222-4222-8222-222222222222', atsModel: 'm1' })],
      priceBeatPromotions: [{ code: 'PB', discount: 2 }],
    })]);
    const r = validatePurchaseRequest(body);
    expect(r.customerId).toBe(CUSTOMER);
    expect(r.events[0]).toMatchObject({
      orderId: 'o-1', currencyCode: 'EUR', recommenderId: REC_UPPER.toLowerCase(), eventTimeMs: Date.UTC(2024, 4, 1, 12),
      products: [{ refId: 'sku-1', quantity: 1, price: 12.5, atsModel: 'm1' }], priceBeatPromotions: [{ code: 'PB', discount: 2 }],
    });
  });

  it('names every missing required field of the request, event, product and promotion', () => {
    expect(errorsOf({})).toEqual({
      customerId: ['The CustomerId field is required.'], sessionId: ['The SessionId field is required.'], events: ['The Events field is required.'],
    });
    const errors = errorsOf(purchaseBody([{ products: [{}], priceBeatPromotions: [{}] }]));
    expect(Object.keys(errors).sort()).toEqual([
      'events[0].CurrentUrl', 'events[0].EventTime', 'events[0].OrderId',
      'events[0].PriceBeatPromotions[0].Code', 'events[0].PriceBeatPromotions[0].Discount',
      'events[0].Products[0].Price', 'events[0].Products[0].Quantity', 'events[0].Products[0].RefId',
    ]);
    expect(errors['events[0].Products[0].RefId']).toEqual(['The RefId field is required.']);
  });

  it('reports empty, blank and null required values under their paths', () => {
    const errors = errorsOf(purchaseBody([event('  ', { currentUrl: '', products: [product({ refId: null })] })], { sessionId: '' }));
    expect(errors).toEqual({
      sessionId: ['The SessionId field must be a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx).'], 'events[0].OrderId': ['The OrderId field must not be blank.'],
      'events[0].CurrentUrl': ['The CurrentUrl field must not be blank.'], 'events[0].Products[0].RefId': ['The RefId field is required.'],
    });
  });

  it('requires at least one product and one event', () => {
    expect(errorsOf(purchaseBody([event('o', { products: [] })]))).toEqual({ 'events[0].Products': ['The Products field must have at least 1 entry.'] });
    expect(errorsOf(purchaseBody([]))).toEqual({ events: ['The Events field must have at least 1 entry.'] });
  });

  it('checks every type', () => {
    const errors = errorsOf({
      customerId: 'not-a-guid', sessionId: 42,
      events: [{
        currentUrl: 7, eventTime: '2024-13-01T00:00:00Z', orderId: ['x'], paymentMethod: {}, currencyCode: 'EURO',
        recommenderId: 'x', campaignId: 1, tacticId: true,
        products: [{ refId: 1, quantity: 1.5, price: 'ten', routeId: 'r', widgetId: 'w', clickId: 'c', supplierId: 's', referralUrl: 3, tacticLabel: false }],
        priceBeatPromotions: [{ code: 5, discount: -1 }],
      }],
    });
    expect(Object.keys(errors).sort()).toEqual([
      'customerId', 'events[0].CampaignId', 'events[0].CurrencyCode', 'events[0].CurrentUrl', 'events[0].EventTime', 'events[0].OrderId',
      'events[0].PaymentMethod', 'events[0].PriceBeatPromotions[0].Code', 'events[0].PriceBeatPromotions[0].Discount',
      'events[0].Products[0].ClickId', 'events[0].Products[0].Price', 'events[0].Products[0].Quantity', 'events[0].Products[0].RefId',
      'events[0].Products[0].ReferralUrl', 'events[0].Products[0].RouteId', 'events[0].Products[0].SupplierId',
      'events[0].Products[0].TacticLabel', 'events[0].Products[0].WidgetId', 'events[0].RecommenderId', 'events[0].TacticId', 'sessionId',
    ]);
    expect(errors.customerId![0]).toMatch(/GUID/);
    expect(errors['events[0].EventTime']![0]).toMatch(/ISO 8601/);
    expect(errors['events[0].Products[0].Quantity']![0]).toMatch(/integer/);
    expect(errors['events[0].Products[0].Price']![0]).toMatch(/decimal/);
    expect(errors['events[0].CurrencyCode']![0]).toMatch(/3-letter/);
  });

  it('accepts ISO 8601 forms and rejects impossible dates', () => {
    for (const t of ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.123456Z', '2024-05-01T14:00:00+02:00', '2024-02-29T00:00:00Z', '2024-05-01T12:00:00+0200']) {
      expect(() => validatePurchaseRequest(purchaseBody([event('o', { eventTime: t })]))).not.toThrow();
    }
    expect(validatePurchaseRequest(purchaseBody([event('o', { eventTime: '2024-05-01T14:00:00+02:00' })])).events[0]!.eventTimeMs).toBe(Date.UTC(2024, 4, 1, 12));
    for (const t of ['2023-02-29T00:00:00Z', '2024-05-01', '2024-05-01T12:00', '2024-05-01T12:00:00', '2024-05-01T25:00:00Z', '1969-12-31T23:59:59Z', 'yesterday', '2024-05-01T12:00:00+25:00', 1714564800000]) {
      expect(Object.keys(errorsOf(purchaseBody([event('o', { eventTime: t })])))).toEqual(['events[0].EventTime']);
    }
  });

  it('validates retail-media data: required fields, at least one cost, a 16-character salt', () => {
    expect(() => validatePurchaseRequest(purchaseBody([event('o', { products: [product(signedRetailMedia())] })]))).not.toThrow();
    const rm = signedRetailMedia();
    delete rm.costPerAction;
    expect(errorsOf(purchaseBody([event('o', { products: [product(rm)] })]))).toEqual({
      'events[0].Products[0]': ['Retail-media data needs at least one of CostPerClick, CostPerAction, CostPerMille.'],
    });
    expect(errorsOf(purchaseBody([event('o', { products: [product({ adSetId: AD_SET, hmacSalt: 'short', costPerClick: 1 })] })]))).toEqual({
      'events[0].Products[0].AdSetVersion': ['The AdSetVersion field is required.'],
      'events[0].Products[0].TimeStamp': ['The TimeStamp field is required.'],
      'events[0].Products[0].HmacSalt': ['The HmacSalt field must be exactly 16 characters long.'],
      'events[0].Products[0].Hmac': ['The Hmac field is required.'],
    });
    // The nested form echoed from a recommendation slot is accepted too.
    const nested = validatePurchaseRequest(purchaseBody([event('o', { products: [product({ retailMedia: signedRetailMedia() })] })]));
    expect(nested.events[0]!.products[0]!.retailMedia).toMatchObject({ adSetId: AD_SET, adSetVersion: 3, costPerAction: 0.5 });
    expect(Object.keys(errorsOf(purchaseBody([event('o', { products: [product({ retailMedia: { adSetId: AD_SET } })] })])))).toContain('events[0].Products[0].RetailMedia.HmacSalt');
  });

  it('requires the campaign id of retailer-boost data', () => {
    expect(errorsOf(purchaseBody([event('o', { products: [product({ retailBoost: {} })] })]))).toEqual({
      'events[0].Products[0].RetailBoost.RetailBoostCollectionCampaignId': ['The RetailBoostCollectionCampaignId field is required.'],
    });
    expect(errorsOf(purchaseBody([event('o', { products: [product({ retailBoostCollectionCampaignId: '' })] })]))).toHaveProperty(['events[0].Products[0].RetailBoostCollectionCampaignId']);
    const ok = validatePurchaseRequest(purchaseBody([event('o', { products: [product({ retailBoost: { retailBoostCollectionCampaignId: BOOST } })] })]));
    expect(ok.events[0]!.products[0]!.retailBoostCollectionCampaignId).toBe(BOOST);
  });

  it('lists several errors at once, across events and products', () => {
    const errors = errorsOf(purchaseBody([event('a', { products: [product({ quantity: 0 }), product({ price: -1 })] }), event('b', { currentUrl: null })], { customerId: 'x' }));
    expect(Object.keys(errors)).toEqual(['customerId', 'events[0].Products[0].Quantity', 'events[0].Products[1].Price', 'events[1].CurrentUrl']);
  });

  it('enforces array and string length limits', () => {
    const many = Array.from({ length: MAX_EVENTS_PER_REQUEST + 1 }, (_, i) => event(`o${i}`));
    expect(errorsOf(purchaseBody(many))).toEqual({ events: [`The Events field must have at most ${MAX_EVENTS_PER_REQUEST} entries.`] });
    const products = Array.from({ length: MAX_PRODUCTS_PER_EVENT + 1 }, () => product());
    expect(Object.keys(errorsOf(purchaseBody([event('o', { products })])))).toEqual(['events[0].Products']);
    expect(errorsOf(purchaseBody([event('x'.repeat(257))]))['events[0].OrderId']![0]).toMatch(/at most 256/);
    expect(errorsOf(purchaseBody([event('o', { currentUrl: 'https://x/'.padEnd(3000, 'a') })]))).toHaveProperty(['events[0].CurrentUrl']);
  });

  it('caps the number of listed errors for huge bodies', () => {
    const products = Array.from({ length: MAX_PRODUCTS_PER_EVENT }, () => ({}));
    const errors = errorsOf(purchaseBody([event('o', { products })]));
    expect(Object.keys(errors)).toHaveLength(MAX_LISTED_ERRORS + 1);
    expect(errors.$![0]).toMatch(/only the first/);
  });

  it('keeps unicode as sent and rejects NUL and unpaired surrogates', () => {
    const r = validatePurchaseRequest(purchaseBody([event('заказ-😀-注文', { products: [product({ refId: 'ürün 🍕' })] })]));
    expect(r.events[0]!.orderId).toBe('заказ-😀-注文');
    expect(r.events[0]!.products[0]!.refId).toBe('ürün 🍕');
    expect(Object.keys(errorsOf(purchaseBody([event('a\u0000b')])))).toEqual(['events[0].OrderId']);
    expect(Object.keys(errorsOf(purchaseBody([event('a\uD800b')])))).toEqual(['events[0].OrderId']);
  });

  it('rejects non-object bodies and elements under $ and their index', () => {
    for (const body of [null, 'text', 42, [], true]) expect(errorsOf(body)).toEqual({ $: ['The request body must be a JSON object.'] });
    expect(errorsOf(purchaseBody([5 as never]))).toEqual({ 'events[0]': ['The Events entry must be an object.'] });
    expect(errorsOf(purchaseBody([event('o', { products: ['sku'] })]))).toEqual({ 'events[0].Products[0]': ['The Products entry must be an object.'] });
    expect(errorsOf({ customerId: CUSTOMER, sessionId: SESSION, events: {} })).toEqual({ events: ['The Events field must be an array.'] });
  });

  it('ignores unknown fields and accepts PascalCase names, reporting top-level keys as sent', () => {
    const r = validatePurchaseRequest({ ...purchaseBody([event('o', { extra: { deep: 1 }, products: [product({ colour: 'red' })] })]), unknown: [1, 2] });
    expect(r.events[0]!.products[0]).toEqual({ refId: 'sku-1', quantity: 1, price: 10 });
    const pascal = validatePurchaseRequest({
      CustomerId: CUSTOMER, SessionId: SESSION,
      Events: [{ CurrentUrl: 'u', EventTime: '2024-05-01T12:00:00Z', OrderId: 'o', Products: [{ RefId: 'r', Quantity: 2, Price: 1 }] }],
    });
    expect(pascal.events[0]).toMatchObject({ orderId: 'o', products: [{ refId: 'r', quantity: 2, price: 1 }] });
    expect(Object.keys(errorsOf({ CustomerId: 'bad', SessionId: SESSION, Events: [{}] }))).toEqual([
      'CustomerId', 'Events[0].CurrentUrl', 'Events[0].EventTime', 'Events[0].OrderId', 'Events[0].Products',
    ]);
  });

  it('rejects an orderId repeated within one request', () => {
    expect(errorsOf(purchaseBody([event('o'), event('o')]))).toEqual({ 'events[1].OrderId': ['The OrderId repeats events[0].OrderId; an order appears once per request.'] });
  });

  it('ignores __proto__ and constructor keys', () => {
    const body = JSON.parse(`{"__proto__": {"customerId": "${CUSTOMER}"}, "constructor": 1, "sessionId": "${SESSION}", "events": []}`) as unknown;
    expect(Object.keys(errorsOf(body))).toEqual(['customerId', 'events']);
  });
});

const REC_UPPER = '11111111-1111-4111-8111-11111111111A';
