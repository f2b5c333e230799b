/**
 * Child process of the cross-process coupon tests: opens an EventService on the given PostgreSQL
 * schema (first argument a postgres URL) or on SQLite in the given data directory, prints "ready", waits for a line on stdin, then calls mark-as-used several times at once
 * and prints one JSON line with the outcomes.
 */
import { createInterface } from 'node:readline';
import { EventService } from '../event-service.js';

const [url, schema, code] = process.argv.slice(2) as [string, string, string];
const service = await EventService.open({
  store: url.startsWith('postgres') ? { type: 'postgres', url, schema } : { type: 'embedded' }, dataDir: url, websites: [{ websiteId: 'site-a', client: 'client-a', tokens: [], hmacSecret: 's' }],
  sink: { onPurchase() {}, onView() {} },
});
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
for await (const _ of lines) break;
const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => service.markCouponUsed('site-a', code)));
process.stdout.write(`${JSON.stringify(outcomes.map((o) => (o.status === 'fulfilled' ? 'used' : (o.reason as { code: string }).code)))}\n`);
await service.close();
