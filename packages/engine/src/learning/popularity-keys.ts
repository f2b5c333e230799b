/**
 * `_popularity` as a sort key: the value of every doc of a catalog version in the layout sort keys
 * read (`byCode[codes[doc] + 1]`, catalog/columns/numeric-column.ts), on SharedArrayBuffers so the
 * search pool's workers read them without a copy. Rebuilt when the catalog version changes, and at
 * most every {@link POPULARITY_REFRESH_MS} when new behaviour came in (a trailing 30-day value moves
 * slowly; a rebuild is linear in the catalog).
 * @module
 */
import type { CatalogState } from '../catalog/catalog-index.js';
import type { NumericValues } from '../catalog/columns/numeric-column.js';
import type { BehaviourPopularity } from './behaviour-popularity.js';

/** Shortest time between two rebuilds of one catalog version's values. */
export const POPULARITY_REFRESH_MS = 5_000;

/** The per-doc `_popularity` of one website, cached. */
export class PopularityKeys {
  private cached: { catalog: string; popularity: number; at: number; values: NumericValues } | undefined;

  constructor(private readonly popularity: () => BehaviourPopularity) {}

  /** The values of `state`'s docs at `now` (see the module doc). */
  valuesFor(state: CatalogState, now: number): NumericValues {
    const catalog = `${state.index.catalogId}:${state.index.version}`;
    const popularity = this.popularity();
    const c = this.cached;
    if (c && c.catalog === catalog && (c.popularity === popularity.version || now - c.at < POPULARITY_REFRESH_MS)) return c.values;
    const n = state.index.docCount;
    const codes = new Int32Array(new SharedArrayBuffer(4 * n));
    for (let d = 0; d < n; d++) codes[d] = d;
    // byCode[0] is the "no value" slot no doc uses: every doc has a value (0 without behaviour).
    const byCode = new Float64Array(new SharedArrayBuffer(8 * (n + 1)));
    for (const [refId, value] of popularity.values(now)) {
      const doc = state.docByRefId.get(refId);
      if (doc !== undefined) byCode[doc + 1] = value;
    }
    const values = { codes, byCode };
    this.cached = { catalog, popularity: popularity.version, at: now, values };
    return values;
  }
}
