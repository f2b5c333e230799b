/**
 * Versions built and then dropped (their change-log write failed: a full disk) leave nothing behind that
 * a later version uses or a snapshot writes. Found on a full disk (issue #27): an upsert bringing a new
 * field was refused, its version dropped, but the shapes it had interned stayed in the product store's
 * shared shape table; the next accepted upsert wrote them into the snapshot, which then named a field
 * the catalog did not have, and the restart refused the whole catalog.
 *
 * A property test: random upserts (new products, new fields, price changes, changed texts) and deletes,
 * each batch's log write failing at random; after each batch the catalog holds exactly the accepted
 * changes, and a snapshot of it loads back to the same products.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Product } from '../../types.js';
import { Catalog } from '../catalog.js';
import { decodeCatalogSnapshot, encodeCatalogSnapshot } from './snapshot.js';

type Op = { kind: 'upsert'; products: Product[] } | { kind: 'delete'; refIds: string[] };

const FIELDS = ['color', 'size', 'material', 'tags'] as const;

const productArb: fc.Arbitrary<Product> = fc.record({
  id: fc.integer({ min: 0, max: 30 }),
  price: fc.integer({ min: 1, max: 5 }),
  title: fc.constantFrom('mug', 'red mug', 'cup'),
  extra: fc.subarray([...FIELDS]),
}).map(({ id, price, title, extra }) => {
  const p: Product = { refId: `p${id}`, title, price };
  for (const f of extra) p[f] = f === 'tags' ? [`t${price}`, 'x'] : `${f}-${price}`;
  return p;
});

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.array(productArb, { minLength: 1, maxLength: 4 }).map((products) => ({ kind: 'upsert' as const, products })), weight: 4 },
  { arbitrary: fc.array(fc.integer({ min: 0, max: 30 }).map((i) => `p${i}`), { minLength: 1, maxLength: 3 }).map((refIds) => ({ kind: 'delete' as const, refIds })), weight: 1 },
);

/** The products of a catalog, by refId. */
function contents(catalog: Catalog): Map<string, string> {
  const out = new Map<string, string>();
  catalog.forEachProduct((p) => out.set(p.refId, JSON.stringify(p)));
  return out;
}

describe('versions dropped after a failed log write', () => {
  it('leave no trace in later versions nor in their snapshots', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(opArb, fc.boolean()), { minLength: 1, maxLength: 12 }), async (steps) => {
      const catalog = new Catalog();
      await catalog.upsert([{ refId: 'p0', title: 'mug', price: 1 }, { refId: 'p1', title: 'cup', price: 2 }]);
      const expected = contents(catalog);
      let failNext = false;
      let position = 0;
      catalog.setChangeLogger(async () => {
        if (failNext) throw new Error('ENOSPC: no space left on device');
        return ++position;
      });
      for (const [op, fails] of steps) {
        failNext = fails;
        const done = op.kind === 'upsert' ? catalog.upsert(op.products) : catalog.delete(op.refIds);
        const accepted = await done.then(() => true, () => false);
        if (!fails) expect(accepted).toBe(true);
        if (accepted) {
          const before = JSON.stringify([...expected]);
          if (op.kind === 'upsert') for (const p of op.products) expected.set(p.refId, JSON.stringify(p));
          else for (const r of op.refIds) expected.delete(r);
          // A batch that changes nothing is not logged, so it cannot fail; any other must have.
          if (fails) expect(JSON.stringify([...expected])).toBe(before);
        }
        const live = contents(catalog);
        expect(new Map([...live].sort())).toEqual(new Map([...expected].sort()));
        const loaded = Catalog.fromState({}, decodeCatalogSnapshot(encodeCatalogSnapshot(catalog.state)).makeState);
        expect(contents(loaded)).toEqual(live);
      }
    }), { numRuns: 150 });
  });
});
