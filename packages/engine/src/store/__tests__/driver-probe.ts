/**
 * Child script of lazy-drivers.test.ts: imports the engine's public entry point, optionally opens an
 * engine on the store named by argv[2] (`none`, `memory`, `embedded`), and prints which of the store
 * drivers Node's CommonJS loader has loaded (both are CommonJS packages, so an ESM import of them
 * lands in the loader's cache too).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine } from '../../index.js';

const loaded = (): string[] => {
  const files = Object.keys(createRequire(import.meta.url).cache);
  return ['better-sqlite3', 'pg'].filter((name) => files.some((f) => f.includes(`${path.sep}node_modules${path.sep}${name}${path.sep}`)));
};

const store = process.argv[2];
const dir = mkdtempSync(path.join(tmpdir(), 'aisle-driver-probe-'));
try {
  if (store === 'memory' || store === 'embedded') {
    // The memory store runs without a data directory: a data directory is locked with an SQLite file
    // lock (catalog/durability/data-dir-lock.ts), which rightly loads better-sqlite3.
    const engine = await createEngine({ workers: 0, store: { type: store }, dataDir: store === 'embedded' ? dir : undefined, websites: [] });
    await engine.close();
  }
  console.log(JSON.stringify(loaded()));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
