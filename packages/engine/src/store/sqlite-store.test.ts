import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { SqliteStore } from './sqlite-store.js';
import { runStoreContract } from './store-contract.js';

const dir = mkdtempSync(path.join(tmpdir(), 'aisle-sqlite-'));
let n = 0;
const files = new WeakMap<object, string>();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

runStoreContract('sqlite', async () => {
  const file = path.join(dir, `store-${n++}.sqlite`);
  const store = SqliteStore.open({ file });
  files.set(store, file);
  return store;
}, {
  reopen: async (store) => {
    const file = files.get(store)!;
    await store.close();
    return SqliteStore.open({ file });
  },
});
