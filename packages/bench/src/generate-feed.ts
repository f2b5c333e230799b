/**
 * Writes a generated catalog as an NDJSON product feed (streamed: a million products never sit in
 * memory at once), e.g. to try `aisle load` or the admin products endpoint at scale.
 *
 *   node packages/bench/dist/generate-feed.js --count 1000000 --seed 1 --out /tmp/catalog.ndjson
 * @module
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { generateCatalogStream } from '@aisle/engine/demo';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const value = (name: string, fallback: string): string => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
  };
  const count = Number(value('count', '10000'));
  const seed = Number(value('seed', '1'));
  const out = value('out', 'catalog.ndjson');
  if (!Number.isInteger(count) || count < 0 || !Number.isFinite(seed)) throw new Error('usage: generate-feed --count N [--seed S] [--out file.ndjson]');
  const file = createWriteStream(out);
  let n = 0;
  for (const product of generateCatalogStream({ count, seed })) {
    if (!file.write(`${JSON.stringify(product)}\n`)) await once(file, 'drain');
    n++;
  }
  file.end();
  await once(file, 'finish');
  console.log(`wrote ${n} products to ${out}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
