import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryTestDb, TEST_PG_URL, TestSchemas, requirePostgres } from './pg-test-env.js';
import { LIFETIME_GRAIN } from './analytics-rows.js';
import { lifetimeRowsSql } from './analytics-sql.js';
import { CHECKPOINT_LOCK, PG_MIGRATIONS, PostgresStore, SHARED_CHECKPOINT_PART_BYTES } from './postgres-store.js';
import { runPreviousVersionCheck } from './previous-version-check.js';
import { runStoreContract } from './store-contract.js';

const schemas = new TestSchemas();
const schemaOf = new WeakMap<object, string>();
beforeAll(requirePostgres);
afterAll(() => schemas.dropAll());

/** A store on a new schema (dropped after the run). */
async function freshStore(): Promise<PostgresStore> {
  const schema = schemas.next();
  const store = await PostgresStore.open({ url: TEST_PG_URL, schema });
  schemaOf.set(store, schema);
  return store;
}

runStoreContract('postgres', freshStore, {
  reopen: async (store) => {
    const schema = schemaOf.get(store)!;
    await store.close();
    return PostgresStore.open({ url: TEST_PG_URL, schema });
  },
});

runPreviousVersionCheck('postgres', {
  fresh: freshStore,
  migratedCopy: async (store) => {
    const current = schemaOf.get(store)!;
    await store.close();
    // The previous release's schema: its migrations (those before the lifetime rows) recorded as the
    // store records them, then every row of this release's schema but the lifetime rows, which it never wrote.
    const version = PG_MIGRATIONS.indexOf(lifetimeRowsSql('{s}.'));
    expect(version).toBeGreaterThan(0);
    const schema = schemas.next();
    const client = new pg.Client({ connectionString: TEST_PG_URL });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query(`CREATE SCHEMA "${schema}"`);
      await client.query(`CREATE TABLE "${schema}".schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
      for (const [i, sql] of PG_MIGRATIONS.slice(0, version).entries()) {
        await client.query(sql.replaceAll('{s}', `"${schema}"`));
        await client.query(`INSERT INTO "${schema}".schema_migrations (version) VALUES ($1)`, [i + 1]);
      }
      const { rows } = await client.query<{ name: string }>(
        `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_name <> 'schema_migrations'`, [schema]);
      for (const { name } of rows) {
        // The previous release's columns only (later migrations add some: result_pages.span).
        const { rows: columns } = await client.query<{ name: string }>(
          'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position', [schema, name]);
        const list = columns.map((c) => `"${c.name}"`).join(', ');
        await client.query(`INSERT INTO "${schema}"."${name}" (${list}) SELECT ${list} FROM "${current}"."${name}"${name === 'analytics_rollups' ? ` WHERE grain <> '${LIFETIME_GRAIN}'` : ''}`);
      }
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
    const migrated = await PostgresStore.open({ url: TEST_PG_URL, schema });
    schemaOf.set(migrated, schema);
    return migrated;
  },
});

describe('postgres store: shared checkpoints', () => {
  it('keeps the newest checkpoint per name, in parts, and refuses an older one or a concurrent writer', async () => {
    const schema = schemas.next();
    const store = await PostgresStore.open({ url: TEST_PG_URL, schema });
    const other = await PostgresStore.open({ url: TEST_PG_URL, schema });
    try {
      const checkpoints = store.sharing.checkpoints!;
      expect(await checkpoints.read('models/a')).toBeUndefined();
      // Three parts, the last one short; every byte value.
      const big = Buffer.alloc(2 * SHARED_CHECKPOINT_PART_BYTES + 1000, 0);
      for (let i = 0; i < big.length; i++) big[i] = (i * 31) & 0xff;
      expect(await checkpoints.write('models/a', 10, big)).toBe('written');
      expect(await checkpoints.write('models/b', 3, Buffer.alloc(0))).toBe('written');
      const read = await other.sharing.checkpoints!.read('models/a');
      expect(read?.seq).toBe(10);
      expect(read?.bytes.equals(big)).toBe(true);
      expect((await checkpoints.read('models/b'))?.bytes.length).toBe(0);
      // Not older, not as old: the stored one holds as many events.
      expect(await other.sharing.checkpoints!.write('models/a', 10, Buffer.from('older'))).toBe('superseded');
      expect(await other.sharing.checkpoints!.write('models/a', 12, Buffer.from('newer'))).toBe('written');
      expect((await checkpoints.read('models/a'))?.bytes.toString()).toBe('newer');
      // The parts of replaced generations are gone.
      const [{ n }] = await queryTestDb<{ n: string }>(`SELECT COUNT(*) AS n FROM "${schema}".checkpoint_parts WHERE name = 'models/a'`);
      expect(Number(n)).toBe(1);
      // A replica writing while another holds the lock leaves the checkpoint to it.
      const client = new pg.Client({ connectionString: TEST_PG_URL });
      await client.connect();
      try {
        await client.query('BEGIN');
        await client.query(`SELECT pg_advisory_xact_lock(hashtext($1), ${CHECKPOINT_LOCK})`, [schema]);
        expect(await checkpoints.write('models/a', 20, Buffer.from('busy'))).toBe('busy');
        await client.query('ROLLBACK');
      } finally {
        await client.end();
      }
      expect(await checkpoints.write('models/a', 20, Buffer.from('later'))).toBe('written');
    } finally {
      await store.close();
      await other.close();
    }
  });
});
