/**
 * Child process of the checkpoint fault tests: starts an engine on the given store (`embedded <dataDir>`
 * or `postgres <url> <schema>`) checkpointing its models every 20 ms, prints "ready", then records the
 * test's views and purchases one request after another, printing "recorded <n>" after each, until it
 * is killed (the test kills it with SIGKILL while a checkpoint is being written).
 */
import { createEngine } from '../../engine.js';
import { checkpointTestTraffic, checkpointTestSite } from './checkpoint-traffic.js';

const [kind, where, schema] = process.argv.slice(2) as [string, string, string | undefined];
const engine = await createEngine({
  ...(kind === 'postgres' ? { store: { type: 'postgres', url: where, schema: schema! } } : { dataDir: where }),
  workers: 0, websites: [checkpointTestSite], modelCheckpointIntervalMs: 20,
});
// The replay of the stored events is over once a recommendation answers.
await engine.recommend(checkpointTestSite.websiteId, 'PopularItems', {});
process.stdout.write('ready\n');
const { views, purchases } = checkpointTestTraffic;
for (let i = 0; ; i++) {
  await engine.recordViews(checkpointTestSite.websiteId, views[i % views.length]!);
  // Each purchase once: a replayed orderId is not stored again.
  if (i < purchases.length) await engine.recordPurchases(checkpointTestSite.websiteId, purchases[i]!);
  process.stdout.write(`recorded ${i + 1}\n`);
}
