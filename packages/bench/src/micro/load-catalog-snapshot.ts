/** `loadCatalogSnapshot` (catalog/durability/snapshot): restoring a catalog from its flatbuffers file. @module */
import { loadCatalogSnapshot, saveCatalogSnapshot } from '@aisle/engine/internal';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { type MicroCase, type MicroContext, consume, contextCatalog } from './context.js';

export const measures = 'loadCatalogSnapshot';

export async function cases(ctx: MicroContext): Promise<MicroCase[]> {
  const catalog = await contextCatalog(ctx);
  const file = join(ctx.tmpDir, 'bench.aislesnap');
  await saveCatalogSnapshot(catalog, file);
  const size = statSync(file).size;
  return [{
    name: `${ctx.products.length.toLocaleString('en-US')} products, ${(size / 1048576).toFixed(1)} MB file`,
    fn: async () => consume(await loadCatalogSnapshot(file)),
  }];
}
