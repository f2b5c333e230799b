import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';
import { loadDataset } from './dist/datasets.js';
import { startAisle } from './dist/peers/aisle.js';
import { createServer, logDestination } from '@aisle/http-adapter';
import { pino } from 'pino';
const products = await loadDataset({ kind: 'generated', count: 10000, seed: 1 });
const dataDir = mkdtempSync(join(tmpdir(), 'aisle-prof-endpoints-'));
const engine = await startAisle(products, undefined, { dataDir });
const logs = logDestination(join(dataDir, 'requests.log'));
const server = await createServer({ engine, port: 0, host: '127.0.0.1', logger: pino({ name: 'aisle' }, logs) });
const session = new Session(); session.connect();
process.on('message', async (m) => {
  if (m === 'start') { await session.post('Profiler.enable'); await session.post('Profiler.start'); process.send('started'); }
  else { const { profile } = await session.post('Profiler.stop'); writeFileSync('/tmp/endpoints-steady.cpuprofile', JSON.stringify(profile)); await server.close(); process.send('stopped'); process.exit(0); }
});
process.send(server.url);
