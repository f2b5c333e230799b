/**
 * Hostile catalog and event bodies: each is refused with a 4xx that names what is wrong, changes
 * nothing, and leaves the service answering (searches included); a feed of many bad records with
 * onError=skip answers a bounded summary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, TOKEN_A, bearer, post, startService, type TestService } from '../helpers.js';
import { catalogRefIds, orderCount, purchaseBody } from './fault-env.js';

let svc: TestService;
beforeAll(async () => { svc = await startService(); });
afterAll(() => svc.close());

/** A JSON text nested `levels` deep, built without recursion. */
function nestedJson(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

async function putFeed(body: string, query = '', type = 'application/x-ndjson'): Promise<Response> {
  return fetch(`${svc.url}/admin/v1/websites/site-a/products${query}`, { method: 'PUT', headers: { 'content-type': type, ...bearer(ADMIN_TOKEN) }, body });
}

async function searchStillWorks(): Promise<void> {
  const res = await post(`${svc.url}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q: 'zanzibar', start: 0, size: 10 }, bearer(TOKEN_A));
  expect(res.status).toBe(200);
}

describe('hostile catalog bodies', () => {
  it('refuses a product nested 6,000 levels deep, naming product and field; nothing changes', async () => {
    const before = await catalogRefIds(svc.url);
    const res = await putFeed(`{"refId":"ok-1","title":"fine"}\n{"refId":"deep-1","spec":${nestedJson(6000)}}\n`);
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { detail?: string; title?: string };
    expect(JSON.stringify(problem)).toMatch(/deep-1.*spec(\.a)+.* nested deeper than/);
    expect(await catalogRefIds(svc.url)).toEqual(before);
    await searchStillWorks();
  });

  it('refuses a 150,000-word field, naming product and field; nothing changes', async () => {
    const words = Array.from({ length: 150_000 }, (_, i) => `w${i % 997}`).join(' ');
    const res = await putFeed(JSON.stringify([{ refId: 'long-1', title: 'long', description: words }]), '', 'application/json');
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toMatch(/long-1.*description.*words/);
    expect((await catalogRefIds(svc.url)).has('long-1')).toBe(false);
    await searchStillWorks();
  });

  it('answers a bounded summary for 200,000 bad records with onError=skip', async () => {
    const bad = '{"title":"no refId"}\n'.repeat(200_000);
    const res = await putFeed(`${bad}{"refId":"after-bad","title":"the one good line"}\n`, '?onError=skip');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.length).toBeLessThan(20_000);
    const summary = JSON.parse(text) as { loaded: number; skipped: unknown[]; skippedCount: number };
    expect(summary).toMatchObject({ loaded: 1, skippedCount: 200_000 });
    expect(summary.skipped).toHaveLength(100);
    await searchStillWorks();
  });
});

describe('hostile event bodies', () => {
  it('refuses deep nesting, huge arrays and wrong types with 4xx and stores nothing', async () => {
    const before = await orderCount(svc.url);
    const purchase = purchaseBody('hostile-1') as { events: Record<string, unknown>[] };
    const deep = JSON.stringify(purchase).replace('"orderId"', `"extra":${nestedJson(6000)},"orderId"`);
    const bodies: string[] = [
      deep,
      JSON.stringify({ ...purchase, events: Array.from({ length: 5000 }, () => purchase.events[0]) }),
      JSON.stringify({ ...purchase, events: [{ ...purchase.events[0], products: 'not a list' }] }),
      JSON.stringify({ ...purchase, events: [{ ...purchase.events[0], eventTime: 12 }] }),
      '{"customerId": "x", "events": [',
      'x'.repeat(2 * 1024 * 1024),
    ];
    for (const body of bodies) {
      const res = await post(`${svc.url}/3.0/events/purchases`, body, bearer(TOKEN_A));
      expect(res.status, body.slice(0, 60)).toBeGreaterThanOrEqual(400);
      expect(res.status, body.slice(0, 60)).toBeLessThan(500);
      await res.arrayBuffer();
    }
    expect(await orderCount(svc.url)).toBe(before);
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  });
});
