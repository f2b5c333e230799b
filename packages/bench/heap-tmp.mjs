import { createEngine } from '@aisle/engine';
import { generateCatalogStream } from '@aisle/engine/demo';
import v8 from 'node:v8';
const count = Number(process.argv[2] ?? 100000);
const ret = () => { gc(); gc(); const m = process.memoryUsage(); return { heap: m.heapUsed, ab: m.arrayBuffers }; };
const b = ret();
let products = [];
for (const p of generateCatalogStream({ count, seed: 1 })) products.push(p);
const engine = await createEngine({ websites: [{ websiteId: 'bench', client: 'bench', tokens: ['t'], hmacSecret: 's' }] });
const t0 = performance.now();
await engine.replaceProducts('bench', products);
console.log('build ms', performance.now() - t0);
products = [];
await new Promise(r => setTimeout(r, Number(process.env.WAIT ?? 2000)));
const a = ret();
console.log('heap MB', ((a.heap - b.heap) / 2**20).toFixed(0), 'arrayBuffers MB', ((a.ab - b.ab) / 2**20).toFixed(0));
if (process.argv[3]) { const f = v8.writeHeapSnapshot(process.argv[3]); console.log('snapshot', f); }
await engine.close();
