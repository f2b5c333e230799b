/**
 * Child process of the catalog durability test: opens an engine on `dataDir`, prints its catalog as
 * `READY <json>`, then runs the deterministic change sequence of `catalogOps(prefix)` one change at a
 * time, printing each change's index once acknowledged, and starts a snapshot (not awaited) every 25
 * changes so that kills also land during snapshot writes and log rotations. The parent kills it.
 */
import { createEngine } from '../../../engine.js';
import { catalogOps, SITE } from './catalog-ops.js';

const [dataDir, prefix, count] = process.argv.slice(2) as [string, string, string];
const engine = await createEngine({ dataDir, workers: 0, websites: [SITE] });
const products: [string, unknown][] = [];
const search = await engine.search({ website_id: SITE.websiteId, client: SITE.client, q: '', start: 0, size: 1000 });
for (const p of search.payload.result) products.push([p.refId, p.price]);
products.sort((a, b) => (a[0] < b[0] ? -1 : 1));
process.stdout.write(`READY ${JSON.stringify(products)}\n`);
const ops = catalogOps(prefix, Number(count));
for (let i = 0; i < ops.length; i++) {
  const op = ops[i]!;
  if (op.kind === 'delete') await engine.deleteProducts(SITE.websiteId, [op.refId]);
  else await engine.upsertProducts(SITE.websiteId, [{ refId: op.refId, title: `mug ${op.refId}`, price: op.price }]);
  process.stdout.write(`${i}\n`);
  if (i % 25 === 24) void engine.saveSnapshots().catch(() => undefined);
}
await engine.close();
process.stdout.write('DONE\n');
