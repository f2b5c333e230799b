/**
 * Child process of the durability test: records purchases on SQLite in `dataDir`, 8 requests at a
 * time, and prints each orderId once its acknowledgement arrived. The parent kills it with SIGKILL.
 * First re-sends `resend` earlier orders (their replays must not be stored twice).
 */
import { EventService } from '../event-service.js';

const [dataDir, prefix, resendPrefix, resendCount] = process.argv.slice(2) as [string, string, string, string];
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

async function send(orderId: string): Promise<void> {
  await service.recordPurchases('site-a', body(orderId));
  process.stdout.write(`${orderId}\n`);
}

await Promise.all(Array.from({ length: Number(resendCount) }, (_, i) => send(`${resendPrefix}-${i}`)));
for (let i = 0; ; i += 8) await Promise.all(Array.from({ length: 8 }, (_, j) => send(`${prefix}-${i + j}`)));
