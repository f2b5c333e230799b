/**
 * The built-in model trained on a worker thread is the model of the same texts trained in time slices
 * on the calling thread: same words, vectors, IDFs and version.
 */
import { describe, expect, it } from 'vitest';
import { runSteps } from '../catalog/steps.js';
import { Catalog } from '../catalog/catalog.js';
import { liveProductList } from '../catalog/changes/tombstones.js';
import { generateCatalog } from '../demo/generate-catalog.js';
import { trainTextModel } from './text-model.js';
import { WebsiteSemantics } from './website-semantics.js';

describe('training on a worker thread', () => {
  it('gives the model of the calling thread, and the website uses it', async () => {
    const catalog = new Catalog();
    // More texts than one message to the worker holds (2,048).
    await catalog.upsert(generateCatalog({ count: 2500, seed: 9 }));
    const fields = catalog.state.index.fullText.fieldIds.map((fid) => catalog.state.index.fields[fid]!.name);
    const inline = runSteps(trainTextModel(liveProductList(catalog.state), fields));
    const semantics = new WebsiteSemantics(catalog, { retrainDelayMs: 0, trainInWorkerFrom: 0 });
    semantics.setBuiltInWanted(true);
    await semantics.settled();
    const trained = semantics.textModel!;
    expect(trained.version).toBe(inline.version);
    expect(trained.parts().words).toEqual(inline.parts().words);
    expect(Buffer.from(trained.parts().vectors.buffer).equals(Buffer.from(inline.parts().vectors.buffer))).toBe(true);
    expect([...trained.parts().idf]).toEqual([...inline.parts().idf]);
    expect(trained.words).toBeGreaterThan(100);
    semantics.close();
  });
});
