/**
 * The products a full rebuild starts from: a version's live products with a batch of changes applied,
 * as a build reads them ({@link BuildProducts}), without decoding the products the batch leaves alone.
 *
 * Why: a rebuild is the path of the changes the fast paths cannot take (a field's kind changing, a
 * delete tombstones cannot represent, a replace). Decoding every live product into objects first, as
 * it did until 2026-11-28, held a million objects at once at 1M products: the collector's marking of
 * them paused the loop for hundreds of milliseconds, and the decoding alone cost seconds. Here the
 * live docs stay in the store (read field by field and copied encoded, as a merge reads them:
 * `storedBuildProducts`); only the batch's own products are objects.
 * @module
 */
import type { Product } from '../../types.js';
import { productArray, type BuildProducts } from '../build/build-catalog-state.js';
import { STEP, type Steps } from '../steps.js';
import { sharedArray } from '../columns/shared-arrays.js';
import type { CatalogState } from '../catalog-index.js';
import { StringMap } from '../columns/string-map.js';
import { Dictionary } from '../columns/dictionary.js';
import { liveDocCount, liveDocsSteps, storedBuildProducts } from './tombstones.js';

/** One change of a catalog's queue. */
export type CatalogChange =
  | { kind: 'upsert'; products: Product[] }
  | { kind: 'replace'; products: Product[] }
  | { kind: 'delete'; refIds: readonly string[] };

/** What a change did: products it loaded or deleted, and the catalog's size right after it. */
export interface ChangeResult { count: number; catalogSize: number }

/** A position of the product order emptied by a delete or a replace (compacted away at the end). */
const REMOVED = 0x7fffffff;

/**
 * Applies `changes` in order to the live products of `base` (never modified), as a list would: an
 * upsert of a known refId takes the product's position (the last occurrence in the batch wins), a new
 * refId goes to the end, a delete closes its gap (the refId, upserted again later in the batch, goes
 * to the end), a replace starts from no product. Each product the batch brings gets a new revision
 * (by the store the build makes); the others keep theirs. `changed` is false when nothing changed
 * (deletes of unknown refIds only): no new version. In steps.
 */
export function* changedProducts(base: CatalogState, changes: readonly CatalogChange[]): Steps<{
  products: BuildProducts; changed: boolean; results: ChangeResult[];
}> {
  // Entry i of the product order: a live doc of `base` (≥ 0), a product of `given` (-1 - index), or
  // REMOVED. A batch starting with a replace needs none of the live docs.
  const startsEmpty = changes[0]?.kind === 'replace';
  const live = startsEmpty ? new Uint32Array(0) : yield* liveDocsSteps(base);
  // A typed array as long as the order can get, sized once: `Array.from(live)` (the typed array's
  // iterator, a million steps) and a million pushes (copies of the whole array as it grows) held the
  // loop for hundreds of milliseconds at 1M products (docs/benchmarks.md, "Stalls at 1M: changes first").
  let capacity = live.length;
  for (const change of changes) if (change.kind !== 'delete') capacity += change.products.length;
  const sources = sharedArray(Int32Array, capacity);
  sources.set(live);
  let sourceCount = live.length;
  // Position of each live doc in `sources`, to find a stored refId's entry (-1: none). Made before the
  // changes (one pass, a few milliseconds at a million docs) so looking a refId up is a plain call: a
  // replace looks up a million.
  const positionOf = sharedArray(Int32Array, startsEmpty ? 0 : base.index.docCount).fill(-1);
  for (let i = 0; i < live.length; i++) {
    positionOf[live[i]] = i;
    if ((i & (STEP - 1)) === STEP - 1) yield;
  }
  let baseGone = startsEmpty;
  // Can reach a million entries (a delete of everything): a split map, whose growth never rehashes a
  // million keys in one step.
  /** Stored refIds deleted by the batch: they are not found in `base` any more. */
  const deleted = new StringMap<true>();
  // Entries of refIds the stored ones do not give (new, or upserted again after a delete): each refId the
  // batch names gets a code (a dictionary sized once, in steps, for all of them), and `addedEntry[code]`
  // is its entry (-1: none). A replace of a million products named a million refIds: in JS maps that was
  // ~60 MB of hash tables (their growth's copies included) alive while both versions were, and
  // 0.7 s of lookups (docs/benchmarks.md, "The full replace at 1M: what it allocates").
  let named = 0;
  for (const change of changes) named += change.kind === 'delete' ? change.refIds.length : change.products.length;
  const codes = Dictionary.empty().writer();
  yield* codes.reserveSteps(named);
  const addedEntry = sharedArray(Int32Array, named).fill(-1);
  const given = new GivenProducts();
  let size = startsEmpty ? 0 : liveDocCount(base);
  let changed = false;
  const results: ChangeResult[] = [];

  /** The entry of `refId` (coded as `code`), or undefined. */
  const entryOf = (refId: string, code: number): number | undefined => {
    const at = addedEntry[code];
    if (at >= 0) return at;
    if (baseGone || deleted.has(refId)) return undefined;
    const doc = base.docByRefId.get(refId);
    const i = doc === undefined ? -1 : positionOf[doc];
    return i < 0 ? undefined : i;
  };

  for (const change of changes) {
    if (change.kind === 'replace') {
      sourceCount = 0;
      addedEntry.fill(-1);
      baseGone = true;
      size = 0;
      changed = true;
    }
    if (change.kind === 'delete') {
      let count = 0;
      // A refId named twice is found once: its entry is gone after the first.
      for (let k = 0; k < change.refIds.length; k++) {
        const refId = change.refIds[k];
        const code = codes.codeFor(refId);
        const i = entryOf(refId, code);
        if (i !== undefined) {
          sources[i] = REMOVED;
          if (addedEntry[code] >= 0) addedEntry[code] = -1;
          else deleted.set(refId, true);
          count++;
        }
        if ((k & 1023) === 1023) yield;
      }
      size -= count;
      if (count > 0) changed = true;
      results.push({ count, catalogSize: size });
      continue;
    }
    const first = given.add(change.products);
    for (let k = 0; k < change.products.length; k++) {
      const p = change.products[k];
      const code = codes.codeFor(p.refId);
      const i = entryOf(p.refId, code);
      const source = -1 - (first + k);
      if (i === undefined) {
        addedEntry[code] = sourceCount;
        sources[sourceCount++] = source;
        size++;
      } else sources[i] = source;
      changed = true;
      if ((k & 1023) === 1023) yield;
    }
    results.push({ count: change.products.length, catalogSize: size });
  }

  const order = sharedArray(Int32Array, size);
  let n = 0;
  // Whether the order is the given products', each once, in the order given (a replace of distinct refIds).
  let asGiven = true;
  for (let i = 0; i < sourceCount; i++) {
    if (sources[i] !== REMOVED) {
      if (sources[i] !== -1 - n) asGiven = false;
      order[n++] = sources[i];
    }
    if ((i & (STEP - 1)) === STEP - 1) yield;
  }
  // After a replace every entry is a product of the batch: read as the plain objects they are.
  if (baseGone) {
    // A replace's own list when it is the order (a replace alone, no refId twice): no copy of a million.
    const list = given.onlyList();
    if (asGiven && list !== undefined && list.length === n) return { products: productArray(list), changed, results };
    // Else put in order in steps (`Array.from(order, …)` is a million calls in one go).
    const products: Product[] = [];
    for (let i = 0; i < n; i++) {
      products.push(given.at(-1 - order[i]));
      if ((i & (STEP - 1)) === STEP - 1) yield;
    }
    return { products: productArray(products), changed, results };
  }
  return { products: storedBuildProducts(base, order, given.all()), changed, results };
}

/**
 * The products a batch brings, numbered in order across its changes (product `k` of a change whose
 * first number is `first` is `first + k`), kept as the changes' own lists: pushing a replace's million
 * products into one list of the batch grew it by copies of the whole list, stalls of up to ~30 ms each
 * at 1M products while a collection marked the heap.
 */
class GivenProducts {
  private readonly lists: (readonly Product[])[] = [];
  private readonly firsts: number[] = [];
  private count = 0;

  /** Adds a change's products; returns the number of the first. */
  add(products: readonly Product[]): number {
    const first = this.count;
    this.lists.push(products);
    this.firsts.push(first);
    this.count += products.length;
    return first;
  }

  /** Product number `g` (a batch holds few changes: the lists are scanned from the last). */
  at(g: number): Product {
    let l = this.lists.length - 1;
    while (this.firsts[l]! > g) l--;
    return this.lists[l]![g - this.firsts[l]!]!;
  }

  /** The one change's list when the batch brought products in one change only. */
  onlyList(): readonly Product[] | undefined {
    return this.lists.length === 1 ? this.lists[0] : undefined;
  }

  /** Every product, numbered by position (a batch of upserts on a live catalog: small lists). */
  all(): readonly Product[] {
    return this.lists.length === 1 ? this.lists[0]! : this.lists.flat();
  }
}
