/**
 * The built-in model survives a restart: saved beside the catalog snapshot after each training, read
 * back at startup, it ranks at once with the same version, and retrains only when the catalog's words
 * changed meanwhile.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../engine.js';
import type { Product } from '../types.js';
import { decodeTextModel, encodeTextModel } from './text-model-file.js';
import { WebsiteSemantics } from './website-semantics.js';
import { catalogOf } from '../search/__tests__/catalog-of.js';

const dir = mkdtempSync(path.join(tmpdir(), 'aisle-text-model-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const products: Product[] = [
  { refId: 'c1', title: 'Slim case for phone', brand: 'A' },
  { refId: 'c2', title: 'Leather case for phone back', brand: 'B' },
  { refId: 'v1', title: 'Flip cover for phone back', brand: 'C' },
  { refId: 'v2', title: 'Rugged cover for phone', brand: 'A' },
  { refId: 'k1', title: 'Phone charger cable', brand: 'D' },
  { refId: 'd1', title: 'Wooden dining table', brand: 'F' },
  { refId: 'd2', title: 'Dining chair', brand: 'F' },
];


describe('the built-in model file', () => {
  it('gives back the model it was written from, with the catalog fingerprint, and refuses a foreign file', async () => {
    const semantics = new WebsiteSemantics(await catalogOf(products), { retrainDelayMs: 0 });
    semantics.setBuiltInWanted(true);
    await semantics.settled();
    const model = semantics.textModel!;
    const { model: back, catalog } = decodeTextModel(encodeTextModel(model, 'fp-1'));
    expect(catalog).toBe('fp-1');
    expect(back.version).toBe(model.version);
    expect(back.parts()).toEqual(model.parts());
    for (const q of ['case', 'dining chair', 'phone back cover']) expect(back.embedOne(q)).toEqual(model.embedOne(q));
    expect(() => decodeTextModel(Buffer.from('not a model'))).toThrow(/not an aisle-ri model/);
    expect(() => decodeTextModel(encodeTextModel(model, 'x').subarray(0, 100))).toThrow();
    semantics.close();
  });

  it('restores without retraining when the words are the same, and retrains (ranking meanwhile) when they changed', async () => {
    const modelFile = path.join(dir, 'unit.aisle-ri');
    const first = new WebsiteSemantics(await catalogOf(products), { retrainDelayMs: 0, modelFile });
    first.setBuiltInWanted(true);
    await first.settled();
    const version = first.textModel!.version;
    first.close();

    const same = new WebsiteSemantics(await catalogOf(products), { retrainDelayMs: 0, modelFile });
    await same.restore();
    expect(same.textModel?.version).toBe(version); // ranks at once
    same.setBuiltInWanted(true);
    await same.settled();
    expect(same.trainings).toBe(0);
    expect(same.textModel?.version).toBe(version);
    same.close();

    const changed = new WebsiteSemantics(await catalogOf([...products, { refId: 'n1', title: 'Phone stand for desk', brand: 'G' }]), { retrainDelayMs: 0, modelFile });
    await changed.restore();
    expect(changed.textModel?.version).toBe(version); // the saved model ranks until the retraining ends
    changed.setBuiltInWanted(true);
    await changed.settled();
    expect(changed.trainings).toBe(1);
    expect(changed.textModel?.version).not.toBe(version);
    changed.close();
  });

  it('reports an unreadable file and trains as if there were none', async () => {
    const modelFile = path.join(dir, 'broken.aisle-ri');
    writeFileSync(modelFile, 'garbage');
    const errors: unknown[] = [];
    const semantics = new WebsiteSemantics(await catalogOf(products), { retrainDelayMs: 0, modelFile, onError: (e) => errors.push(e) });
    await semantics.restore();
    expect(errors).toHaveLength(1);
    expect(semantics.textModel).toBeUndefined();
    semantics.setBuiltInWanted(true);
    await semantics.settled();
    expect(semantics.trainings).toBe(1);
    semantics.close();
  });

  it('lets a restarted engine answer with the same model at once, without training again', async () => {
    const dataDir = path.join(dir, 'engine');
    const site = { websiteId: 'site-m', client: 'client-m', tokens: ['token-m'], hmacSecret: 'secret-m', settings: { semanticSearch: true } };
    const open = () => createEngine({ dataDir, workers: 0, semanticRetrainDelayMs: 0, websites: [site] });
    const search = { website_id: site.websiteId, client: site.client, start: 0, q: 'phone' };
    const engine = await open();
    await engine.upsertProducts(site.websiteId, products);
    const model = await engine.semanticModel(site.websiteId);
    const label = `${model!.id}@${model!.version}`;
    const before = await engine.search(search);
    expect(before.settings).toEqual({ ats_model: label, ranked_by: ['semantic'] });
    await engine.close();
    const file = path.join(dataDir, 'catalogs', `${site.websiteId}.aisle-ri`);
    const written = statSync(file).mtimeMs;

    const again = await open();
    try {
      const after = await again.search(search); // no wait for any training
      expect(after.settings).toEqual({ ats_model: label, ranked_by: ['semantic'] });
      expect(after.payload.result.map((p) => p.refId)).toEqual(before.payload.result.map((p) => p.refId));
      expect(await again.semanticModel(site.websiteId)).toEqual(model);
      expect(statSync(file).mtimeMs).toBe(written); // nothing retrained (a training writes the file)
    } finally {
      await again.close();
    }
  });
});
