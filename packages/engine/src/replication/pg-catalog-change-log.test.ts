import { afterAll, beforeAll } from 'vitest';
import { runChangeLogContract } from '../catalog/durability/change-log-contract.js';
import { PgChangeFeed } from '../store/pg-change-feed.js';
import { CuttableProxy, TestSchemas, requirePostgres } from '../store/pg-test-env.js';
import { PgCatalogChangeLog } from './pg-catalog-change-log.js';

const schemas = new TestSchemas();
beforeAll(requirePostgres);
afterAll(() => schemas.dropAll());

// One schema per place, reached through a proxy whose link can be cut; each open connects anew, as a
// restarted replica does.
runChangeLogContract('postgres', async () => {
  const schema = schemas.next();
  const proxy = new CuttableProxy();
  const url = await proxy.start();
  const feeds: PgChangeFeed[] = [];
  return {
    open: async (websiteId) => {
      const feed = await PgChangeFeed.open({ url, schema });
      feeds.push(feed);
      const log = new PgCatalogChangeLog(feed, websiteId, 'contract');
      // The view releases nothing of the shared feed; here the feed is the log's alone.
      return Object.assign(log, { close: () => feed.close() });
    },
    breakAppends: async () => {
      proxy.cut();
      return async () => proxy.restore();
    },
    remove: async () => {
      await Promise.all(feeds.map((f) => f.close()));
      await proxy.close();
    },
  };
});
