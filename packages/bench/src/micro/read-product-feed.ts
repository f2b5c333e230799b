/** `readProductFeed` (catalog/input/feed-reader): streaming an NDJSON and a JSON-array feed into products. @module */
import { readProductFeed, SkipReport } from '@aisle/engine/internal';
import { Readable } from 'node:stream';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'readProductFeed';

export async function cases(ctx: MicroContext): Promise<MicroCase[]> {
  const products = ctx.products.slice(0, 10_000);
  const ndjson = Buffer.from(products.map((p) => JSON.stringify(p)).join('\n'));
  const array = Buffer.from(JSON.stringify(products));
  const chunks = (buf: Buffer): Buffer[] => { const out: Buffer[] = []; for (let i = 0; i < buf.length; i += 65536) out.push(buf.subarray(i, i + 65536)); return out; };
  const read = async (buf: Buffer): Promise<void> => {
    let n = 0;
    for await (const _ of readProductFeed(Readable.from(chunks(buf), { objectMode: false }), { skipped: new SkipReport() })) n++;
    consume(n);
  };
  const mb = (b: Buffer): string => (b.length / 1048576).toFixed(1);
  return [
    { name: `10,000 products as NDJSON (${mb(ndjson)} MB)`, fn: () => read(ndjson) },
    { name: `10,000 products as a JSON array (${mb(array)} MB)`, fn: () => read(array) },
  ];
}
