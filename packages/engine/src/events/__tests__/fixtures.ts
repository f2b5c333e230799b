/** Shared test fixtures for the events tests. */
import { signRetailMedia } from '../../retail-media/index.js';
import type { WebsiteConfig } from '../../config.js';
import type { PurchaseRecord, ViewRecord } from '../../types.js';
import type { EventSink } from '../event-service.js';

export const CUSTOMER = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
export const CUSTOMER_2 = '9a1f6b5e-2c3d-4e5f-8a9b-0c1d2e3f4a5b';
export const SESSION = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
export const REC = '11111111-1111-4111-8111-111111111111';
export const WIDGET = '22222222-2222-4222-8222-222222222222';
export const CAMPAIGN = '33333333-3333-4333-8333-333333333333';
export const TACTIC = '44444444-4444-4444-8444-444444444444';
export const AD_SET = '55555555-5555-4555-8555-555555555555';
export const BOOST = '66666666-6666-4666-8666-666666666666';
export const SECRET = 'test-secret';

export const WEBSITE: WebsiteConfig = { websiteId: 'site-a', client: 'client-a', tokens: ['tok-a'], hmacSecret: SECRET };
export const WEBSITE_B: WebsiteConfig = { websiteId: 'site-b', client: 'client-b', tokens: ['tok-b'], hmacSecret: 'other' };

export function product(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { refId: 'sku-1', quantity: 1, price: 10, ...extra };
}

export function event(orderId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { currentUrl: 'https://shop.example/thanks', eventTime: '2024-05-01T12:00:00Z', orderId, products: [product()], ...extra };
}

export function purchaseBody(events: Record<string, unknown>[] = [event('o-1')], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { customerId: CUSTOMER, sessionId: SESSION, events, ...extra };
}

export function viewBody(refIds: string[] = ['sku-1'], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    customerId: CUSTOMER, sessionId: SESSION,
    events: refIds.map((refId) => ({ currentUrl: `https://shop.example/p/${refId}`, eventTime: '2024-05-01T12:00:00Z', refId })),
    ...extra,
  };
}

/** Retail-media product fields signed with `secret`. */
export function signedRetailMedia(opts: { secret?: string; timeStamp?: string; costPerAction?: number; costPerClick?: number; costPerMille?: number } = {}): Record<string, unknown> {
  const fields = {
    adSetId: AD_SET, hmacSalt: 'AbCdEfGhIjKlMnOp', timeStamp: opts.timeStamp ?? '2024-05-01T11:00:00Z',
    ...(opts.costPerAction !== undefined && { costPerAction: opts.costPerAction }),
    ...(opts.costPerClick !== undefined && { costPerClick: opts.costPerClick }),
    ...(opts.costPerMille !== undefined && { costPerMille: opts.costPerMille }),
  };
  if (opts.costPerAction === undefined && opts.costPerClick === undefined && opts.costPerMille === undefined) (fields as Record<string, unknown>).costPerAction = 0.5;
  return { ...fields, adSetVersion: 3, hmac: signRetailMedia(fields, opts.secret ?? SECRET) };
}

/** A sink that records what it receives. */
export class RecordingSink implements EventSink {
  readonly purchases: PurchaseRecord[] = [];
  readonly views: ViewRecord[] = [];
  onPurchase(p: PurchaseRecord): void { this.purchases.push(p); }
  onView(v: ViewRecord): void { this.views.push(v); }
}
