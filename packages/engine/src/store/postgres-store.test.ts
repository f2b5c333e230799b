import { afterAll, beforeAll } from 'vitest';
import { TEST_PG_URL, TestSchemas, requirePostgres } from './pg-test-env.js';
import { PostgresStore } from './postgres-store.js';
import { runStoreContract } from './store-contract.js';

const schemas = new TestSchemas();
const schemaOf = new WeakMap<object, string>();
beforeAll(requirePostgres);
afterAll(() => schemas.dropAll());

runStoreContract('postgres', async () => {
  const schema = schemas.next();
  const store = await PostgresStore.open({ url: TEST_PG_URL, schema });
  schemaOf.set(store, schema);
  return store;
}, {
  reopen: async (store) => {
    const schema = schemaOf.get(store)!;
    await store.close();
    return PostgresStore.open({ url: TEST_PG_URL, schema });
  },
});
