import { afterAll, beforeAll } from 'vitest';
import { runChangeLogContract } from '../catalog/durability/change-log-contract.js';
import { PgChangeFeed } from '../store/pg-change-feed.js';
import { TEST_PG_URL, TestSchemas, requirePostgres } from '../store/pg-test-env.js';
import { PgCatalogChangeLog } from './pg-catalog-change-log.js';

const schemas = new TestSchemas();
beforeAll(requirePostgres);
afterAll(() => schemas.dropAll());

// One schema per place; each open connects anew, as a restarted replica does.
runChangeLogContract('postgres', async () => {
  const schema = schemas.next();
  const feeds: PgChangeFeed[] = [];
  return {
    open: async (websiteId) => {
      const feed = await PgChangeFeed.open({ url: TEST_PG_URL, schema });
      feeds.push(feed);
      const log = new PgCatalogChangeLog(feed, websiteId, 'contract');
      // The view releases nothing of the shared feed; here the feed is the log's alone.
      return Object.assign(log, { close: () => feed.close() });
    },
    remove: async () => {
      await Promise.all(feeds.map((f) => f.close()));
    },
  };
});
