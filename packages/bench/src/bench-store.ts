/**
 * A store of its own for a bench: the embedded store in a fresh temporary directory, or a fresh schema
 * of the PostgreSQL server `pgUrl` names; `dispose` closes it and removes the directory and the schema.
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore } from '@aisle/engine/internal';

/** The store a bench writes to, and how to throw it away. */
export interface BenchStore {
  store: Awaited<ReturnType<typeof openStore>>;
  dispose: () => Promise<void>;
}

/** Opens a bench's own store (see the module comment); `name` prefixes the directory and the schema. */
export async function openBenchStore(name: string, pgUrl: string | undefined): Promise<BenchStore> {
  const dir = mkdtempSync(path.join(tmpdir(), `aisle-${name}-`));
  const schema = `aisle_${name.replace(/[^a-z0-9]/gi, '_')}_${process.pid}`;
  const store = await openStore(pgUrl ? { type: 'postgres', url: pgUrl, schema } : { type: 'embedded' }, dir);
  return {
    store,
    dispose: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
      if (!pgUrl) return;
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
