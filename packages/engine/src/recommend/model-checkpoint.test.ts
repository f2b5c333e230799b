/**
 * Checkpointed models go on exactly as the models they were saved from: random traffic is fed to
 * models, a checkpoint is taken at a random point (encoded and decoded, as through the file), models are
 * created from it, and the rest of the traffic is fed to both; their saved states are byte for byte the
 * same and every method answers the same. Small neighbour caps and pages make evictions, block moves
 * and page changes happen.
 */
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { objectProductList } from '../catalog/columns/product-store.js';
import type { CatalogView, Product } from '../types.js';
import { METHODS } from './methods.js';
import { decodeModelCheckpoint, encodeModelCheckpoint, MODEL_CHECKPOINT_FORMAT } from './model-checkpoint.js';
import type { ModelState } from './model-state.js';
import { RecommendationModels, type RecommendationTuning } from './recommendation-models.js';

const REFS = Array.from({ length: 40 }, (_, i) => `r${i}`);
const website = { websiteId: 'w', client: 'c', tokens: [], hmacSecret: 'k' };
const tuning: Partial<RecommendationTuning> = { popularRefreshMs: 0, viewNeighbourCap: 6, purchaseNeighbourCap: 5, sessionCap: 4, historicCap: 5, purchasedCap: 3, boughtHalfLifeDays: 0.001 };

function catalog(): CatalogView {
  const product = (refId: string): Product => ({ refId, title: `item ${refId}`, brand: `b${Number(refId.slice(1)) % 3}` });
  const live = new Set(REFS.slice(0, 30));
  return {
    version: 1, liveCount: live.size, has: (r) => live.has(r), getProduct: (r) => (live.has(r) ? product(r) : undefined),
    isInStock: (r) => live.has(r), liveProducts: () => objectProductList([...live].map(product)),
  };
}

type Event = { kind: 'view' | 'purchase'; customer: string; session: string; refs: string[]; day: number };
const eventArb: fc.Arbitrary<Event> = fc.record({
  kind: fc.constantFrom('view' as const, 'purchase' as const),
  customer: fc.constantFrom('c1', 'c2', 'c3', 'c4', ''),
  session: fc.constantFrom('s1', 's2', 's3'),
  refs: fc.array(fc.constantFrom(...REFS), { minLength: 1, maxLength: 6 }),
  day: fc.integer({ min: 0, max: 30 }),
});

function feed(models: RecommendationModels, events: readonly Event[], offset: number): void {
  events.forEach((e, i) => {
    const n = offset + i;
    // Days far apart: the forward decay rescales the co-purchase table now and then.
    const time = Date.UTC(2026, 0, 1) + e.day * 86_400_000 * 40 + n;
    if (e.kind === 'view') for (const refId of e.refs) models.applyView({ websiteId: 'w', customerId: e.customer, sessionId: `${e.customer}-${e.session}`, refId, eventTime: time });
    else models.applyPurchase({ websiteId: 'w', customerId: e.customer, sessionId: e.session, orderId: `o${n}`, eventTime: time, items: e.refs.map((refId) => ({ refId, quantity: 1, price: 1 })) });
  });
}

const create = (state?: ModelState) => new RecommendationModels({ website, catalog: catalog(), now: () => 0, tuning, state });

describe('model checkpoints', () => {
  it('restore models that go on exactly as the saved ones', () => {
    fc.assert(fc.property(fc.array(eventArb, { maxLength: 60 }), fc.array(eventArb, { maxLength: 60 }), (before, after) => {
      const original = create();
      feed(original, before, 0);
      const checkpoint = decodeModelCheckpoint(encodeModelCheckpoint('w', original, 42));
      expect(checkpoint.seq).toBe(42);
      const restored = create(checkpoint.state);
      feed(original, after, before.length);
      feed(restored, after, before.length);
      expect(encodeModelCheckpoint('w', restored, 1).equals(encodeModelCheckpoint('w', original, 1))).toBe(true);
      for (const method of METHODS.map((m) => m.name)) {
        for (const productRef of ['r1', 'r7', 'r29']) {
          const params = { productRef, items: ['r2', 'r3'], customerId: 'c1', count: 8 };
          expect(restored.recommend(method, params)).toEqual(original.recommend(method, params));
        }
      }
    }), { numRuns: 60 });
  });

  it('are refused when damaged, of another format or built with another tuning', () => {
    const models = create();
    feed(models, [{ kind: 'view', customer: 'c1', session: 's1', refs: ['r1', 'r2'], day: 0 }], 0);
    const bytes = encodeModelCheckpoint('w', models, 7);
    expect(() => decodeModelCheckpoint(bytes.subarray(0, bytes.length - 8))).toThrow(/damaged/);
    expect(() => decodeModelCheckpoint(Buffer.from('not a checkpoint at all'))).toThrow(/not a AISLEMC1 file/);
    // A byte of an array changed: no length check sees it, the checksum does.
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 16] ^= 1;
    expect(() => decodeModelCheckpoint(flipped)).toThrow(/damaged \(checksum mismatch\)/);
    const other = Buffer.from(bytes.toString('latin1').replace(`"format":${MODEL_CHECKPOINT_FORMAT}`, '"format":9'), 'latin1');
    // With its checksum made right: refused for its format.
    other.writeUInt32LE(crc32(other.subarray(0, other.length - 8)), other.length - 8);
    expect(() => decodeModelCheckpoint(other)).toThrow(/format 9/);
    const { state } = decodeModelCheckpoint(bytes);
    expect(() => new RecommendationModels({ website, catalog: catalog(), tuning: { ...tuning, viewNeighbourCap: 7 }, state })).toThrow(/another tuning/);
  });
});
