/**
 * Shared pieces of the fault-injection suite: servers as child processes (to kill them with SIGKILL)
 * or in this process, purchase bodies with known order ids, and the checks every fault test makes —
 * an acknowledged write survives, a refused one leaves no trace, `/readyz` tells the truth.
 */
import { eventually } from '../child-server.js';
import { ADMIN_TOKEN, TOKEN_A, bearer, post } from '../helpers.js';

export { startChild, type ChildServer } from '../child-server.js';

const CUSTOMER = '7d1c0a9e-5b2f-4f4e-9a51-0c6f3c1e2a10';
const SESSION = '0b7f1e0c-3d2a-4c55-8e1f-2a9b6c4d8e21';

/** A purchase body of one order. */
export function purchaseBody(orderId: string, refId = 'P-1'): Record<string, unknown> {
  // A resend of an order is the same order: the same content, its first time included (other content is a 409).
  let eventTime = orderTimes.get(orderId);
  if (eventTime === undefined) orderTimes.set(orderId, (eventTime = new Date().toISOString()));
  return {
    customerId: CUSTOMER, sessionId: SESSION,
    events: [{ currentUrl: 'https://shop.example/checkout', eventTime, orderId, products: [{ refId, quantity: 1, price: 10 }] }],
  };
}

/** The event time each order was first sent with. */
const orderTimes = new Map<string, string>();

/** Sends one purchase; the status and, when acknowledged, its transactionId (status 0: no answer). */
export async function sendPurchase(url: string, orderId: string): Promise<{ status: number; transactionId?: string }> {
  try {
    const res = await post(`${url}/3.0/events/purchases`, purchaseBody(orderId), bearer(TOKEN_A));
    const body = await res.json() as { transactionId?: string };
    return { status: res.status, transactionId: body.transactionId };
  } catch {
    return { status: 0 };
  }
}

/** Upserts products through the admin API; the status (0: no answer). */
export async function putProducts(url: string, products: object[], websiteId = 'site-a'): Promise<number> {
  try {
    const res = await fetch(`${url}/admin/v1/websites/${websiteId}/products`, {
      method: 'PUT', headers: { 'content-type': 'application/json', ...bearer(ADMIN_TOKEN) }, body: JSON.stringify(products),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** Every refId of a website's catalog (through search, page by page). */
export async function catalogRefIds(url: string): Promise<Set<string>> {
  const found = new Set<string>();
  for (let start = 0; ; start += 1000) {
    const res = await post(`${url}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q: '', start, size: 1000 }, bearer(TOKEN_A));
    if (res.status !== 200) throw new Error(`search answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as { payload: { result: { refId: string }[]; total_results: number } };
    for (const p of page.payload.result) found.add(p.refId);
    if (start + 1000 >= page.payload.total_results) return found;
  }
}

/** Orders recorded for site-a (admin stats). */
export async function orderCount(url: string): Promise<number> {
  const res = await fetch(`${url}/admin/v1/websites/site-a/stats`, { headers: bearer(ADMIN_TOKEN) });
  return ((await res.json()) as { orders: number }).orders;
}

/**
 * Asserts that every acknowledged order is stored: sending it again answers its first transactionId
 * (an order not stored would be recorded now, with the new request's id).
 */
export async function unrecordedOrders(url: string, acknowledged: ReadonlyMap<string, string>): Promise<string[]> {
  const missing: string[] = [];
  const all = [...acknowledged];
  for (let i = 0; i < all.length; i += 64) {
    await Promise.all(all.slice(i, i + 64).map(async ([orderId, transactionId]) => {
      const again = await sendPurchase(url, orderId);
      if (again.transactionId !== transactionId) missing.push(orderId);
    }));
  }
  return missing;
}

/** `/readyz`: status and the failed checks' reasons. */
export async function readiness(url: string): Promise<{ status: number; reasons: string[] }> {
  const res = await fetch(`${url}/readyz`);
  const body = (await res.json()) as { checks?: { ok: boolean; name: string; reason?: string }[] };
  return { status: res.status, reasons: (body.checks ?? []).filter((c) => !c.ok).map((c) => `${c.name}: ${c.reason}`) };
}

/**
 * Waits until the server reports ready: a restarted server serves searches at once and turns ready
 * when its stored events are replayed and its indexes built (docs/operations.md, readiness checks).
 */
export async function whenReady(url: string, deadlineMs = 60_000): Promise<void> {
  await eventually(async () => (await readiness(url)).status === 200, async () => `ready (${(await readiness(url)).reasons.join('; ')})`, deadlineMs);
}

export { eventually };
