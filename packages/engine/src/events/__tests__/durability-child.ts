/**
 * Child process of the durability test: records purchases (or, with `clicks`, clicks with a clickId)
 * on SQLite in `dataDir`, 8 requests at a time, and prints each orderId (clickId) once its
 * acknowledgement arrived. The parent kills it with SIGKILL. First re-sends `resend` earlier ones
 * (their replays must not be stored twice).
 */
import { EventService } from '../event-service.js';

const [dataDir, prefix, resendPrefix, resendCount, kind = 'purchases'] = process.argv.slice(2) as [string, string, string, string, string?];
const service = await EventService.open({
  store: { type: 'embedded' }, dataDir, websites: [{ websiteId: 'site-a', client: 'client-a', tokens: [], hmacSecret: 's' }],
  sink: { onPurchase() {}, onView() {} },
});

function body(orderId: string): unknown {
  return {
    customerId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301', sessionId: '6ba7b810-9dad-11d1-80b4-00c04fd430c8',
    events: [{ currentUrl: 'https://shop.example/thanks', eventTime: '2024-05-01T12:00:00Z', orderId, products: [{ refId: 'sku', quantity: 1, price: 1 }] }],
  };
}

/** A click whose clickId is a GUID made of the id's position (`<prefix>-<n>` → a GUID per prefix and n). */
function clickId(id: string): string {
  const hex = Buffer.from(id).toString('hex').padStart(32, '0').slice(-32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function clickBody(id: string): unknown {
  return {
    customerId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301', sessionId: '6ba7b810-9dad-11d1-80b4-00c04fd430c8',
    events: [{ eventTime: '2024-05-01T12:00:00Z', refId: 'sku', type: 'click', clickId: clickId(id) }],
  };
}

async function send(id: string): Promise<void> {
  if (kind === 'clicks') await service.recordClicks('site-a', clickBody(id), async () => new Map());
  else await service.recordPurchases('site-a', body(id));
  process.stdout.write(`${kind === 'clicks' ? clickId(id) : id}\n`);
}

await Promise.all(Array.from({ length: Number(resendCount) }, (_, i) => send(`${resendPrefix}-${i}`)));
for (let i = 0; ; i += 8) await Promise.all(Array.from({ length: 8 }, (_, j) => send(`${prefix}-${i + j}`)));
